// The desk's result sheet (screen/shared/sheet.js) drawn in Chromium from a record, in each of the
// venue's languages, and printed to PDF and PNG (tests/league/test_result_sheet_desk.py runs it):
// the competition and its round, the fixture, the venue and the table, the date in the language
// (day before month), every correction written out. Reports the text of each for the Python side.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, closeInput, launch } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
mkdirSync(plan.shots, { recursive: true });
const browser = await launch(plan.chromium);
const page = await browser.newPage({ viewport: { width: 1000, height: 1300 } });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
// An empty page at the server's origin (its modules import from there), answered here.
await page.route(`${plan.base}/sheet-test.html`, (route) => route.fulfill({ contentType: "text/html",
  body: '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body></body></html>' }));
await page.goto(`${plan.base}/sheet-test.html`);
for (const lang of plan.langs) {
  const text = await page.evaluate(async ({ lang, record, competition }) => {
    const { html, render } = await import("/shared/ui.js");
    const { deskWords } = await import("/shared/page.js");
    const { SheetView } = await import("/shared/sheet.js");
    const t = await deskWords(lang, "sheet");
    document.documentElement.lang = lang;
    if (!document.head.querySelector("link")) {
      document.head.insertAdjacentHTML("beforeend", '<link rel="stylesheet" href="/desk/desk.css">');
      await new Promise((resolve) => { document.head.querySelector("link").onload = resolve; });
    }
    document.body.innerHTML = '<div id="app"></div>';
    render(html`<${SheetView} t=${t} lang=${lang} venue="club" table="t9" record=${record} competition=${competition} />`,
      document.getElementById("app"));
    return document.querySelector(".sheet").innerText;
  }, { lang, record: plan.record, competition: plan.competition });
  console.log(`report ${lang} ${JSON.stringify(text)}`);
  if (lang === plan.picture) {
    await page.emulateMedia({ media: "print" });
    writeFileSync(plan.pdf, await page.pdf({ format: "A4", printBackground: true }));
    await page.emulateMedia({ media: "screen" });
    await page.locator(".sheet").screenshot({ path: join(plan.shots, `desk-sheet-${lang}.png`) });
  }
}
check(errors.length === 0, `no page errors (${errors.join("; ")})`);
await browser.close();
closeInput();
console.log("all ok");
