/**
 * The page's whole stylesheet, inlined (no CDN, no build step). System
 * fonts; light and dark from the visitor's setting; colours chosen for at
 * least 4.5:1 contrast (WCAG AA) on their backgrounds in both schemes.
 */
export const STYLES = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;--link:#0969da;--bad:#cf222e;--good:#1a7f37;--mark:#fff3a3;--focus:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#161b22;--link:#4493f8;--bad:#ff7b72;--good:#3fb950;--mark:#6b4f00;--focus:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
header,main,footer{max-width:64rem;margin:0 auto;padding:0 1rem}
header{padding-top:1.5rem}
h1{margin:0;font-size:2rem}h2{margin:2.5rem 0 .75rem;font-size:1.5rem}h3{margin:0 0 .5rem;font-size:1.15rem}h4{margin:0;font-size:1rem}.panel h4{margin-top:1rem}
nav.jump{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;margin:.75rem 0 0}
.muted,.hint{color:var(--muted)}.hint{font-size:.9rem;margin:.25rem 0}
.up{color:var(--good);font-weight:600}
code,pre,kbd{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:anywhere}
pre{margin:.25rem 0 .75rem;padding:.75rem;background:var(--card);border:1px solid var(--line);border-radius:6px;overflow-x:auto}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,28rem),1fr))}
.card,.panel{border:1px solid var(--line);border-radius:8px;padding:1rem;background:var(--bg);min-width:0}
.panel,#key-box{margin:0 0 1.5rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.3rem .5rem .3rem 0;border-bottom:1px solid var(--line);vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
dl{margin:0}dt{font-weight:600;margin-top:.5rem}dd{margin:0}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem .75rem;overflow-wrap:anywhere}dl.facts dt{margin:0}
.source{margin:0 0 1rem}.good{color:var(--good)}.bad{color:var(--bad)}
details.client{border:1px solid var(--line);border-radius:8px;margin:0 0 .5rem;padding:0 1rem}
details.client>summary{cursor:pointer;padding:.6rem 0;font-weight:600}
details.client[open]>summary{border-bottom:1px solid var(--line);margin-bottom:.5rem}
.snippet-head{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin-top:.5rem}
.snippet-head h4{font-weight:600;font-size:.95rem}
label{font-weight:600;display:block;margin:.5rem 0 .25rem}
label.inline{display:inline-flex;gap:.4rem;align-items:center;font-weight:400;margin:0}
input,select,textarea,button{font:inherit;color:inherit}
input[type=text],input[type=search],input[type=password],select,textarea{width:100%;padding:.5rem;border:1px solid var(--muted);border-radius:6px;background:var(--bg)}
textarea{resize:vertical}
.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}.row>.grow{flex:1 1 16rem;min-width:0}.row>.fit{flex:0 1 14rem}
.row label{margin-top:0}
button{padding:.5rem 1rem;border-radius:6px;border:1px solid var(--link);background:var(--link);color:#fff;font-weight:600;cursor:pointer}
@media (prefers-color-scheme:dark){button{color:#0d1117}}
button.quiet{background:transparent;color:var(--link);padding:.25rem .6rem}
[aria-busy=true]{opacity:.6}
.hits,.references{overflow-wrap:anywhere}.hits{padding-left:1.5rem}.hits>li{margin:0 0 1rem}.hits p{margin:.2rem 0}h5{margin:0;font-size:1.05rem}
.meta{margin:.15rem 0;font-size:.9rem;color:var(--muted)}
mark{background:var(--mark);color:inherit;border-radius:2px;padding:0 1px}
.answer p{margin:.5rem 0}
sup a{text-decoration:none;font-weight:600;padding:0 1px}
.error{border-left:4px solid var(--bad);padding:.5rem .75rem;margin:.75rem 0;background:var(--card)}
.error h3,.error strong{color:var(--bad)}
.field-error{color:var(--bad);font-size:.9rem;margin:.2rem 0}
[aria-invalid=true]{border-color:var(--bad)!important;border-width:2px!important}
.badge{display:inline-block;font-size:.8rem;border:1px solid var(--line);border-radius:1rem;padding:0 .5rem;margin-left:.35rem;color:var(--muted)}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.75rem 0;padding:.25rem .75rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}a.sr-only:focus{position:static;width:auto;height:auto;clip-path:none;display:inline-block;margin:.5rem 1rem}
footer{margin-top:3rem;padding-bottom:2rem;border-top:1px solid var(--line)}
@media (max-width:40rem){body{font-size:15px}h1{font-size:1.6rem}h2{font-size:1.3rem}.card,.panel{padding:.75rem}}
`.trim();
