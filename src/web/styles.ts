/** The hosted pages' one stylesheet, served from our own origin (the Content-Security-Policy allows no other). */
export const PAGES_CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a2233; background: #eef1f6; }
.sandbox { background: #ffe08a; color: #5c4400; text-align: center; font-size: 14px; padding: 6px 12px; }
.sheet { max-width: 480px; margin: 24px auto; background: #fff; border-radius: 12px; box-shadow: 0 2px 12px rgba(20, 30, 60, .08); overflow: hidden; }
.merchant { background: #1f3a8a; color: #fff; padding: 20px 24px; }
.merchant h1 { margin: 0; font-size: 20px; font-weight: 600; overflow-wrap: anywhere; }
.merchant .sub { margin: 4px 0 0; opacity: .8; font-size: 14px; }
.panel { padding: 20px 24px; border-top: 1px solid #e3e7ef; }
.panel:first-of-type { border-top: 0; }
h2 { font-size: 17px; margin: 0 0 12px; }
table.items { width: 100%; border-collapse: collapse; font-size: 15px; }
table.items td { padding: 6px 0; vertical-align: top; }
table.items td.num { text-align: right; white-space: nowrap; padding-left: 12px; }
table.items tr.total td { border-top: 1px solid #e3e7ef; font-weight: 600; padding-top: 10px; }
table.items tr.due td { font-size: 18px; font-weight: 700; }
label { display: block; font-size: 14px; margin: 12px 0 4px; color: #4a5468; }
input[type=text] { font-family: inherit; width: 100%; font-size: 17px; padding: 10px 12px; border: 1px solid #c4cbd8; border-radius: 8px; }
input[type=text]:focus { outline: 2px solid #3b63d6; border-color: #3b63d6; }
.row { display: flex; gap: 12px; }
.row > div { flex: 1; }
button, .button { font-family: inherit; display: inline-block; width: 100%; margin-top: 16px; padding: 12px 16px; font-size: 17px; font-weight: 600; text-align: center;
  color: #fff; background: #1f3a8a; border: 0; border-radius: 8px; cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: #1f3a8a; border: 1px solid #1f3a8a; }
button.danger { background: #b42318; }
.wallets { display: flex; gap: 8px; flex-wrap: wrap; }
.wallets form { flex: 1 1 120px; }
.wallets button { margin-top: 0; background: #fff; color: #1a2233; border: 1px solid #c4cbd8; }
.notice { padding: 12px 14px; border-radius: 8px; margin: 0 0 12px; font-size: 15px; }
.notice.error { background: #fdecea; color: #8a1c12; }
.notice.info { background: #e8f0fe; color: #1d3c8f; }
.result { text-align: center; }
.result .mark { font-size: 44px; line-height: 1; }
.qr { display: block; width: 220px; height: 220px; margin: 8px auto; }
.muted { color: #6a7386; font-size: 14px; }
.footer { text-align: center; color: #8a93a6; font-size: 13px; margin: 0 0 24px; }
code { font-size: 14px; background: #f1f3f8; padding: 1px 4px; border-radius: 4px; }
@media (max-width: 520px) { .sheet { margin: 0; border-radius: 0; box-shadow: none; } }
`;
