/** A form post as a browser sends it to a hosted page, without following the redirect it answers with. */
export async function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
}
