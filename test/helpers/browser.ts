// A headless Chromium for browser tests, with no downloads beyond npm: @sparticuz/chromium unpacks its
// binary (a few seconds, once per machine), playwright-core drives it. Every request a page makes that
// leaves the service under test is aborted and recorded, so a test can require that there were none.
import chromium from "@sparticuz/chromium";
import { type Browser, type Page, chromium as playwright } from "playwright-core";

export interface GuardedPage {
  page: Page;
  /** URLs of requests that tried to leave the service (aborted). */
  outside: string[];
  /** Console errors and page errors (e.g. Content-Security-Policy violations, failed scripts). */
  errors: string[];
}

export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    // As on a closed network: no background traffic of Chromium's own.
    args: [
      ...chromium.args,
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export async function openGuardedPage(
  browser: Browser,
  serviceUrl: string,
  /** The page's screen: `deviceScaleFactor` (device pixel ratio) and `viewport`, Playwright's defaults otherwise. */
  screen: { deviceScaleFactor?: number; viewport?: { width: number; height: number } } = {},
): Promise<GuardedPage> {
  const context = await browser.newContext(screen);
  const page = await context.newPage();
  const outside: string[] = [];
  const errors: string[] = [];
  const origin = new URL(serviceUrl).origin;
  await page.route("**/*", async (route) => {
    const url = route.request().url();
    if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === origin) {
      await route.continue();
      return;
    }
    outside.push(url);
    await route.abort("blockedbyclient");
  });
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, outside, errors };
}
