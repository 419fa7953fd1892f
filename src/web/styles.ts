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

/** The API reference's stylesheet (/docs): the hosted pages' colours, a contents column, code that scrolls. */
export const DOCS_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { scroll-padding-top: 64px; }
body { margin: 0; font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a2233; background: #eef1f6; }
a { color: #1f4e8c; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
p code, li code, td code, h3 code { background: #f1f3f8; padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
.topbar { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 12px; padding: 10px 20px; background: #1f3a8a; color: #fff; }
.topbar .brand { display: flex; align-items: center; gap: 8px; color: #fff; text-decoration: none; font-weight: 700; font-size: 18px; }
.topbar .title { opacity: .85; }
.topbar .version { font-size: 12px; background: rgba(255, 255, 255, .15); padding: 1px 8px; border-radius: 10px; }
.topbar .raw { margin-left: auto; color: #fff; font-size: 14px; }
.layout { display: grid; grid-template-columns: 280px minmax(0, 1fr); gap: 24px; max-width: 1280px; margin: 0 auto; padding: 24px 20px; }
.toc { position: sticky; top: 72px; align-self: start; max-height: calc(100vh - 96px); overflow-y: auto; font-size: 14px; }
.toc ul { list-style: none; margin: 0; padding: 0; }
.toc > ul > li { margin: 0 0 10px; font-weight: 600; }
.toc li li { font-weight: 400; margin: 4px 0 4px 4px; }
.toc a { text-decoration: none; color: #1a2233; }
.toc a:hover { color: #1f4e8c; text-decoration: underline; }
main { min-width: 0; }
main > section { background: #fff; border-radius: 12px; box-shadow: 0 2px 12px rgba(20, 30, 60, .06); padding: 20px 24px; margin: 0 0 24px; }
h1 { font-size: 26px; margin: 0 0 12px; }
h2 { font-size: 21px; margin: 0 0 12px; }
h3 { font-size: 17px; margin: 20px 0 8px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
h4 { font-size: 14px; text-transform: uppercase; letter-spacing: .04em; color: #4a5468; margin: 18px 0 6px; }
.operation { border-top: 1px solid #e3e7ef; padding-top: 8px; margin-top: 16px; }
.operation .summary { font-weight: 600; margin: 0 0 6px; }
.method { display: inline-block; min-width: 56px; text-align: center; font-size: 12px; font-weight: 700; color: #fff; border-radius: 4px; padding: 1px 6px; font-family: ui-monospace, Menlo, Consolas, monospace; }
.method.get { background: #1b7f4b; }
.method.post { background: #1f4e8c; }
.method.put { background: #9a5b00; }
.method.delete { background: #b42318; }
.toc .method { min-width: 48px; font-size: 10px; }
.notice { padding: 10px 14px; border-radius: 8px; background: #e8f0fe; color: #1d3c8f; }
.notice.warn { background: #fff4d6; color: #5c4400; }
.muted { color: #6a7386; font-size: 13px; font-weight: 400; text-transform: none; letter-spacing: 0; }
.alias { font-size: 14px; }
.samples { display: grid; gap: 12px; }
.sample { margin: 0; border: 1px solid #dfe4ee; border-radius: 8px; overflow: hidden; background: #f8f9fc; }
.sample figcaption { font-size: 12px; font-weight: 600; color: #4a5468; padding: 4px 10px; background: #eef1f6; border-bottom: 1px solid #dfe4ee; }
.sample .note { font-size: 13px; color: #4a5468; margin: 0; padding: 6px 10px; border-top: 1px solid #dfe4ee; }
pre.code { margin: 0; padding: 10px 12px; overflow: auto; background: #f8f9fc; white-space: pre; }
section > pre.code, .operation > pre.code { border: 1px solid #dfe4ee; border-radius: 8px; }
pre.reply { max-height: 28em; }
table.plain { border-collapse: collapse; width: 100%; font-size: 14px; margin: 6px 0; }
table.plain th, table.plain td { text-align: left; vertical-align: top; border-bottom: 1px solid #e3e7ef; padding: 6px 8px; }
table.plain th { font-size: 12px; text-transform: uppercase; color: #4a5468; }
ul.fields { list-style: none; margin: 4px 0; padding-left: 0; font-size: 14px; }
ul.fields ul.fields { padding-left: 18px; border-left: 2px solid #e3e7ef; margin-left: 4px; }
ul.fields li { margin: 4px 0; }
.fields .name { font-weight: 600; }
.type { color: #6b3fa0; font-size: 13px; }
.req { color: #b42318; font-size: 12px; font-weight: 600; }
.rule { color: #4a5468; font-size: 12px; }
.desc { color: #1a2233; }
.desc::before { content: "· "; color: #8a93a6; }
details { margin: 10px 0; }
summary { cursor: pointer; font-weight: 600; font-size: 14px; color: #1f4e8c; }
.footer { text-align: center; color: #8a93a6; font-size: 13px; margin: 0 0 24px; }
@media (max-width: 900px) {
  .topbar .title { display: none; }
  .layout { grid-template-columns: minmax(0, 1fr); padding: 12px 8px; }
  .toc { position: static; max-height: none; background: #fff; border-radius: 12px; padding: 12px 16px; }
  main > section { padding: 16px 14px; }
}
`;
