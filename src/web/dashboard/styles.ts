/** The dashboard's stylesheet, served from our own origin: wide tables at desktop width, one column on a phone. */
export const DASHBOARD_CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a2233; background: #f4f6fa; }
a { color: #1f3a8a; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #3b63d6; outline-offset: 2px; }
.sandbox { background: #ffe08a; color: #5c4400; text-align: center; font-size: 14px; padding: 6px 12px; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; background: #1f3a8a; color: #fff; padding: 10px 20px; }
.top .brand { font-weight: 700; margin-right: auto; color: #fff; text-decoration: none; }
.top .who { font-size: 14px; opacity: .9; }
.top form { margin: 0; }
.top button { margin: 0; padding: 6px 12px; font-size: 14px; background: #fff; color: #1f3a8a; border: 0; border-radius: 6px; cursor: pointer; }
nav.menu { background: #fff; border-bottom: 1px solid #dde2ec; padding: 0 12px; overflow-x: auto; white-space: nowrap; }
nav.menu a { display: inline-block; padding: 10px 10px; text-decoration: none; color: #39425a; border-bottom: 3px solid transparent; }
nav.menu a[aria-current=page] { color: #1f3a8a; border-bottom-color: #1f3a8a; font-weight: 600; }
main { max-width: 1100px; margin: 0 auto; padding: 20px; }
h1 { font-size: 22px; margin: 0 0 16px; }
h2 { font-size: 17px; margin: 24px 0 8px; }
.card { background: #fff; border: 1px solid #dde2ec; border-radius: 10px; padding: 16px 20px; margin-bottom: 16px; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid #e6e9f0; vertical-align: top; overflow-wrap: anywhere; }
th { font-size: 13px; color: #4a5468; font-weight: 600; }
label { display: block; font-size: 14px; margin: 12px 0 4px; color: #39425a; }
input[type=text], input[type=email], input[type=password], select { font: inherit; width: 100%; max-width: 420px; padding: 8px 10px; border: 1px solid #b9c1d0; border-radius: 6px; background: #fff; }
button { font: inherit; margin-top: 12px; padding: 8px 16px; font-weight: 600; color: #fff; background: #1f3a8a; border: 0; border-radius: 6px; cursor: pointer; }
button.danger { background: #b42318; }
td form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0; }
td form button, td form select { margin: 0; width: auto; }
.notice { padding: 10px 14px; border-radius: 8px; margin: 0 0 16px; }
.notice.error { background: #fde8e6; color: #8a1c12; }
.notice.done { background: #e3f6e8; color: #17612d; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 16px; background: #f1f3f8; padding: 4px 8px; border-radius: 4px; }
.signin { max-width: 400px; margin: 48px auto; }
form.filters { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: flex-end; }
form.filters > div { flex: 1 1 160px; }
form.filters input, form.filters select { max-width: none; }
nav[aria-label=Pages] { margin: 12px 0; display: flex; gap: 16px; }
.muted { color: #5b6478; font-size: 14px; }
@media (max-width: 640px) {
  main { padding: 12px; }
  table.list thead { display: none; }
  table.list tr { display: block; border-bottom: 1px solid #dde2ec; padding: 6px 0; }
  table.list td { display: block; border: 0; padding: 2px 10px; }
  table.list td[data-label]::before { content: attr(data-label) ": "; color: #5b6478; font-size: 13px; }
}
`;
