/** What a hosted page's handler answers: a page (with its status), or a redirect after a form was posted. */
export type PageAnswer = { status: number; html: string } | { redirect: string };
