/**
 * The review pages' stylesheet: n8n's form look (Open Sans with system fallbacks, n8n's card,
 * border and accent colours) in light and dark themes (`prefers-color-scheme`). Inline only: the
 * page's Content-Security-Policy allows inline styles and nothing else (no script, no font files).
 *
 * Without JavaScript, the decision controls are radio buttons drawn as large buttons (the radio
 * itself stays focusable and is only visually hidden), and CSS shows the reason box after Deny or
 * Edit and the edit fields after Edit (`:checked ~`). Without CSS everything is simply visible.
 * Colours meet WCAG AA contrast (4.5:1 for text): n8n's coral (#ff6d5a) is too light behind white
 * text, so buttons use a darker shade of it.
 */
export const REVIEW_STYLE = `
:root{color-scheme:light dark;--bg:#fbfcfe;--card:#fff;--border:#dbdfe7;--text:#2d2e33;--muted:#5c5f66;--accent:#c7402d;--accent-text:#fff;--focus:#5a4cc2;
--ok:#1c7a3d;--ok-bg:#e8f6ee;--bad:#b3261e;--bad-bg:#fdecea;--warn:#8a5300;--warn-bg:#fff4e0;--info:#1f4fa3;--info-bg:#e8effc;--code-bg:#f3f4f7;--changed:#7a4d00;--changed-bg:#fff7d6}
@media (prefers-color-scheme:dark){:root{--bg:#1f2024;--card:#2a2b31;--border:#43454d;--text:#eceef2;--muted:#b4b7bf;--accent:#ff8a7a;--accent-text:#1f2024;--focus:#a99dff;
--ok:#7fdc9c;--ok-bg:#1d3a27;--bad:#ff9d94;--bad-bg:#44201e;--warn:#ffc56b;--warn-bg:#3d2e12;--info:#9dbcff;--info-bg:#1e2b45;--code-bg:#22232a;--changed:#ffd76b;--changed-bg:#3b3217}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 'Open Sans',system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 4rem}
h1{font-size:1.5rem;margin:.25rem 0 .5rem}h2{font-size:1.15rem;margin:0}h3{font-size:1rem;margin:1rem 0 .35rem}
.lead{color:var(--muted);margin:.25rem 0 1rem}
.card{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:1rem;margin:1rem 0;box-shadow:0 4px 16px rgba(99,77,255,.06)}
.call{border-left:6px solid var(--border)}.call.risk-high{border-left-color:var(--bad)}.call.risk-medium{border-left-color:var(--warn)}.call.risk-low{border-left-color:var(--ok)}
.call-head{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;justify-content:space-between}
.where{color:var(--muted);font-size:.9rem;margin:.15rem 0 .5rem}
.badges{display:flex;flex-wrap:wrap;gap:.35rem;margin:.5rem 0}
.badge{display:inline-block;font-size:.8rem;font-weight:600;padding:.1rem .55rem;border-radius:999px;border:1px solid currentColor}
.badge.high{color:var(--bad);background:var(--bad-bg)}.badge.medium{color:var(--warn);background:var(--warn-bg)}.badge.low{color:var(--ok);background:var(--ok-bg)}.badge.info{color:var(--info);background:var(--info-bg)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .75rem;margin:.5rem 0;font-size:.95rem}.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
pre{background:var(--code-bg);padding:.6rem .75rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24rem;overflow:auto;margin:.35rem 0}
code{overflow-wrap:anywhere}
.args{background:var(--code-bg);border-radius:6px;padding:.5rem .75rem;margin:.35rem 0}
.args dl{margin:0}.args dl dl,.args ol{border-left:2px solid var(--border);padding-left:.75rem;margin:.15rem 0 .15rem .25rem}
.args dt{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}.args dd{margin:0 0 .35rem 0}
.args .v{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
.args .s::before,.args .s::after{content:'"';color:var(--muted)}.args .lit{color:var(--info)}
.args ol{padding-left:1.75rem}
.warn,.error,.notice,.ok-box{border-left:4px solid;padding:.5rem .75rem;margin:.5rem 0;border-radius:4px}
.warn{background:var(--warn-bg);border-color:var(--warn)}.error{background:var(--bad-bg);border-color:var(--bad)}.notice{background:var(--info-bg);border-color:var(--info)}.ok-box{background:var(--ok-bg);border-color:var(--ok)}
.hidden-flag{background:var(--bad-bg);color:var(--bad);font-size:.85rem;padding:0 .3rem;border-radius:4px}
.tag{font-size:.8rem;padding:0 .4rem;border-radius:4px;background:var(--code-bg)}.tag.bad{background:var(--bad-bg);color:var(--bad)}
details{margin:.35rem 0}summary{cursor:pointer;min-height:44px;display:flex;align-items:center;gap:.35rem;font-weight:600;list-style:none}summary::-webkit-details-marker{display:none}summary::before{content:'▸';color:var(--muted)}details[open]>summary::before{content:'▾'}
.meta{color:var(--muted);font-size:.9rem}
label{display:block;margin:.35rem 0}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=number],input[type=date],input[type=datetime-local],select,textarea{width:100%;min-height:44px;padding:.5rem .65rem;font:inherit;color:var(--text);background:var(--card);border:1px solid var(--border);border-radius:6px}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
input:focus,select:focus,textarea:focus{border-color:var(--focus)}
fieldset{border:1px solid var(--border);border-radius:8px;padding:.75rem 1rem;margin:1rem 0;min-width:0}legend{font-weight:600;padding:0 .25rem}
.decide{display:flex;flex-wrap:wrap;gap:.5rem;border:0;padding:0;margin:1rem 0 .25rem}
.decide legend{width:100%;margin-bottom:.35rem;padding:0}
.pick{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.pick + label{flex:1 1 7rem;display:flex;align-items:center;justify-content:center;min-height:48px;margin:0;padding:.5rem 1rem;border:2px solid var(--border);border-radius:8px;font-weight:600;cursor:pointer;background:var(--card);text-align:center}
.pick:focus-visible + label{outline:3px solid var(--focus);outline-offset:2px}
.pick.approve:checked + label{background:var(--ok);border-color:var(--ok);color:var(--card)}
.pick.deny:checked + label{background:var(--bad);border-color:var(--bad);color:var(--card)}
.pick.edit:checked + label{background:var(--info);border-color:var(--info);color:var(--card)}
.pick:checked + label::before{content:'✓ '}
.reason-box,.edit-box{flex:1 1 100%;display:none}
.pick.deny:checked ~ .reason-box,.pick.edit:checked ~ .reason-box,.pick.edit:checked ~ .edit-box{display:block}
.edit-box{border:1px solid var(--info);border-radius:8px;padding:.75rem;background:var(--info-bg)}
.edit-field{margin:.6rem 0}.edit-field label{margin:0 0 .2rem}.field-label{font-weight:600;overflow-wrap:anywhere}.field-description{display:block;color:var(--muted);font-size:.88rem}
.edit-field.changed{background:var(--changed-bg);outline:2px solid var(--changed);border-radius:6px;padding:.35rem .5rem}
.edit-field.invalid{outline:2px solid var(--bad);border-radius:6px;padding:.35rem .5rem}
.field-error{display:block;color:var(--bad);font-weight:600;font-size:.9rem}.was{display:block;color:var(--changed);font-size:.85rem}
.tag.changed-tag{background:var(--changed-bg);color:var(--changed);font-weight:600}
.edit-group{background:var(--card)}.edit-item{border-top:1px dashed var(--border);padding-top:.35rem;margin-top:.35rem}.edit-item.changed{background:var(--changed-bg)}
.grant{border-style:dashed}.grant select{min-height:44px;max-width:100%}.grant-fields{list-style:none;padding-left:1.5rem;margin:.25rem 0}.grant-pick{display:block;min-height:44px;padding:.55rem 0 .55rem 1.9rem;text-indent:-1.9rem;font-weight:600;overflow-wrap:anywhere}.grant-pick input{width:1.2rem;height:1.2rem;margin:0 .7rem 0 0;vertical-align:middle}.grant-made{color:var(--ok);overflow-wrap:anywhere}.grants p,.grants code{overflow-wrap:anywhere}
.keep{display:flex;align-items:center;gap:.5rem;min-height:44px;font-weight:600}
input[type=checkbox],input[type=radio]{width:1.25rem;height:1.25rem;accent-color:var(--accent)}
.required{font-size:.75rem;padding:0 .35rem;border-radius:4px;background:var(--bad-bg);color:var(--bad)}
.choice{display:inline-flex;align-items:center;gap:.35rem;min-height:44px;margin-right:1.25rem}
.field{display:block;margin:.6rem 0}
.input-request{background:var(--ok-bg);border-color:var(--ok)}.input-request legend{font-weight:600}
.input-message{font-size:1.05rem;white-space:pre-wrap;overflow-wrap:anywhere}
.host{font-size:1.15rem;background:var(--warn-bg);padding:0 .3rem;border-radius:4px}a{color:var(--info);overflow-wrap:anywhere}
.input-actions{margin-top:.75rem;padding-top:.5rem;border-top:1px solid var(--border)}
.actions{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:.75rem 1rem;margin:1.5rem 0}
.buttons{display:flex;flex-wrap:wrap;gap:.5rem}
button{font:inherit;font-weight:600;min-height:48px;padding:.5rem 1.25rem;border-radius:8px;cursor:pointer;border:2px solid transparent;flex:1 1 10rem}
button.primary{background:var(--accent);color:var(--accent-text)}
button.all-approve{background:var(--card);color:var(--ok);border-color:var(--ok)}button.all-deny{background:var(--card);color:var(--bad);border-color:var(--bad)}
.summary-list{list-style:none;padding:0;margin:0}.summary-list li{border-top:1px solid var(--border);padding:.6rem 0}
.verdict{font-weight:700}.verdict.approve{color:var(--ok)}.verdict.deny{color:var(--bad)}.verdict.edit{color:var(--info)}
.changes{width:100%;border-collapse:collapse;font-size:.9rem;margin:.35rem 0}.changes th,.changes td{border:1px solid var(--border);padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}.changes td:last-child{background:var(--changed-bg)}
.status-icon{font-size:2.5rem;line-height:1}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
