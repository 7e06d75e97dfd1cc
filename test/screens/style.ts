import { LIST_WITH_DETAIL, WINDOW } from "../helpers/row-width.js";

/**
 * The look of the pages html.ts draws: Raycast's dark theme, its window's size and the list beside
 * the detail pane at the widths of test/helpers/row-width.ts. DejaVu stands in for SF Pro where
 * Chromium runs on Linux.
 */
export const CSS = `
* { box-sizing: border-box; margin: 0; }
body { width: ${WINDOW.width}px; height: ${WINDOW.height}px; overflow: hidden; background: #1c1c1e; color: #f5f5f5;
  font: 14px -apple-system, "SF Pro Text", "Helvetica Neue", "DejaVu Sans", sans-serif; }
.window { display: flex; flex-direction: column; height: 100%; }
.search { height: 56px; flex: none; display: flex; align-items: center; padding: 0 16px; border-bottom: 1px solid #333;
  font-size: 17px; position: relative; }
.placeholder { color: #777; }
.dropdown { margin-left: auto; font-size: 13px; border: 1px solid #444; border-radius: 6px; padding: 3px 8px; color: #ccc; }
.loading { position: absolute; left: 0; bottom: -1px; height: 2px; width: 40%; background: #3b82f6; }
.main { flex: 1; display: flex; min-height: 0; }
.list { flex: 1; overflow: hidden; padding: 4px 8px; }
.split .list { flex: none; width: ${LIST_WITH_DETAIL.list}px; }
.detail { width: ${LIST_WITH_DETAIL.detail}px; border-left: 1px solid #333; display: flex; flex-direction: column; min-height: 0; }
.md { padding: 12px 16px; overflow: hidden; flex: 1; font-size: 13px; line-height: 1.45; }
.md.full { padding: 16px 24px; }
.md h1 { font-size: 18px; margin: 0 0 8px; } .md h2 { font-size: 15px; margin: 0 0 6px; } .md h3 { font-size: 14px; }
.md p, .md li, .md blockquote { margin: 0 0 6px; }
.md blockquote { border-left: 3px solid #555; padding-left: 8px; color: #bbb; }
.md pre { background: #2a2a2c; padding: 6px 8px; border-radius: 6px; white-space: pre-wrap; font: 12px Menlo, "DejaVu Sans Mono", monospace; margin: 0 0 8px; }
.md code { font: 12px Menlo, "DejaVu Sans Mono", monospace; background: #2a2a2c; padding: 0 3px; border-radius: 3px; }
.md hr, .form hr { border: 0; border-top: 1px solid #333; margin: 8px 0; }
.metadata { border-top: 1px solid #333; padding: 8px 16px; max-height: 45%; overflow: hidden; flex: none; }
.meta { display: flex; justify-content: space-between; gap: 12px; font-size: 12px; padding: 3px 0; }
.meta span:first-child { color: #9ca3af; white-space: nowrap; } .meta span:last-child { text-align: right; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.section { font-size: 12px; color: #9ca3af; padding: 8px 8px 4px; font-weight: 600; }
.section span { font-weight: 400; margin-left: 8px; }
.row { display: flex; align-items: center; height: 38px; padding: 0 8px; border-radius: 8px; gap: 8px; white-space: nowrap; overflow: hidden; }
.row.sel { background: #3a3a3c; }
.icon { width: 20px; flex: none; text-align: center; }
.title { flex: none; max-width: 100%; overflow: hidden; text-overflow: ellipsis; }
.sub { color: #9ca3af; overflow: hidden; text-overflow: ellipsis; flex: 1 1 auto; min-width: 0; }
.accs { display: flex; gap: 8px; margin-left: auto; flex: none; }
.acc { color: #9ca3af; font-size: 13px; }
.tag { font-size: 12px; border-radius: 5px; padding: 2px 8px; }
.empty { text-align: center; margin-top: 110px; color: #9ca3af; } .empty h2 { color: #f5f5f5; font-size: 16px; margin: 8px 0 4px; }
.empty .icon { font-size: 28px; width: auto; }
.bar { height: 40px; flex: none; border-top: 1px solid #333; display: flex; align-items: center; padding: 0 12px; font-size: 12px; color: #9ca3af; background: #232325; }
.bar .keys { margin-left: auto; } .bar b { color: #f5f5f5; font-weight: 500; }
kbd { background: #3a3a3c; border-radius: 4px; padding: 1px 5px; margin-left: 3px; font: 11px inherit; color: #ddd; }
.sep { display: inline-block; width: 1px; height: 14px; background: #444; margin: 0 10px; vertical-align: middle; }
.form { flex: 1; padding: 20px 40px; overflow: hidden; }
.field { display: flex; align-items: flex-start; gap: 12px; margin-bottom: 10px; }
.field label { width: 150px; text-align: right; color: #ccc; padding-top: 4px; font-size: 13px; flex: none; }
.input { flex: 1; border: 1px solid #444; border-radius: 6px; padding: 4px 8px; min-height: 28px; font-size: 13px; background: #262628;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.input.tall { min-height: 64px; white-space: normal; }
.desc { color: #9ca3af; font-size: 12px; padding-top: 4px; }
.menubar { height: 24px; background: #2b2b2d; display: flex; justify-content: flex-end; align-items: center; gap: 16px; padding: 0 12px; font-size: 13px; }
.menu { position: absolute; right: 60px; top: 28px; width: 340px; background: #2a2a2cf0; border: 1px solid #444; border-radius: 8px; padding: 5px; }
.mhead { font-size: 12px; color: #9ca3af; padding: 4px 8px 2px; font-weight: 600; }
.mitem { display: flex; align-items: center; gap: 6px; height: 22px; padding: 0 8px; font-size: 13px; white-space: nowrap; overflow: hidden; }
.mitem .sub { margin-left: 4px; } .chev { margin-left: auto; color: #9ca3af; }
.panel { position: absolute; right: 8px; bottom: 48px; width: 330px; max-height: 400px; overflow: hidden; background: #2a2a2c;
  border: 1px solid #444; border-radius: 10px; padding: 5px; box-shadow: 0 8px 24px #0008; }
.panel .mitem { height: 26px; border-radius: 6px; } .panel .mitem.sel { background: #3a3a3c; }
.msep { border-top: 1px solid #444; margin: 5px 8px; }
`;
