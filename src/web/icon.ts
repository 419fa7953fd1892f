/** The hosted pages' icon: a small SVG of our own, so a browser's tab shows paygate and never logs a 404. */
export const ICON_PATH = '/pay/assets/icon.svg';

/** Browsers ask for /favicon.ico before reading a page's <link rel="icon">; both answer the same image. */
export const FAVICON_PATH = '/favicon.ico';

export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1f4e8c"/>
<rect x="6" y="10" width="20" height="13" rx="2" fill="#ffffff"/>
<rect x="6" y="13" width="20" height="3" fill="#1f4e8c"/>
<rect x="9" y="19" width="6" height="2" fill="#1f4e8c"/>
</svg>
`;
