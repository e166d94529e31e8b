// Word lists for demo content: enough variety that search, filters and markdown output look real.
export const TOPICS = [
  "Engineering",
  "Design",
  "Product",
  "Company",
  "Tutorials",
  "Changelog",
  "Security",
  "Performance",
  "Open Source",
  "Community",
  "Data",
  "Infrastructure",
  "Mobile",
  "Web",
  "AI",
  "Research",
  "Culture",
  "Careers",
  "Events",
  "Customers",
];

export const TAG_WORDS = [
  "javascript",
  "typescript",
  "react",
  "graphql",
  "postgres",
  "redis",
  "css",
  "accessibility",
  "testing",
  "devops",
  "kubernetes",
  "serverless",
  "caching",
  "search",
  "markdown",
  "seo",
  "analytics",
  "onboarding",
  "pricing",
  "roadmap",
  "api",
  "sdk",
  "cli",
  "docs",
  "release",
  "bugfix",
  "migration",
  "architecture",
  "monitoring",
  "logging",
];

export const FIRST_NAMES = [
  "Ada",
  "Grace",
  "Linus",
  "Margaret",
  "Ken",
  "Barbara",
  "Dennis",
  "Radia",
  "Tim",
  "Frances",
  "Alan",
  "Hedy",
];
export const LAST_NAMES = [
  "Lovelace",
  "Hopper",
  "Torvalds",
  "Hamilton",
  "Thompson",
  "Liskov",
  "Ritchie",
  "Perlman",
  "Berners-Lee",
  "Allen",
];
export const ROLES = ["Editor", "Staff Writer", "Engineer", "Designer", "Product Manager", "Guest Author"];

const SUBJECTS = [
  "caching",
  "pagination",
  "full-text search",
  "rate limiting",
  "image uploads",
  "webhooks",
  "schema design",
  "migrations",
];
const VERBS = ["improves", "simplifies", "speeds up", "hardens", "rethinks", "explains"];
const SENTENCES = [
  "We measured every step before changing anything, and the numbers surprised us.",
  "The first version worked, but it did not survive contact with real traffic.",
  "Small, boring changes compound: this one removed a whole class of incidents.",
  "Readers asked for this for a long time, so we finally wrote it down properly.",
  "Here is what we tried, what failed, and what we would do differently next time.",
  "A good default beats a configurable option that nobody understands.",
  "The database was never the bottleneck; the way we talked to it was.",
  "Every request now does less work, and the tail latency shows it.",
];

export function pick<T>(items: readonly T[], n: number): T {
  return items[n % items.length] as T;
}

export function demoTitle(n: number): string {
  return `How ${pick(SUBJECTS, n)} ${pick(VERBS, n * 7 + 3)} our ${pick(TOPICS, n * 3 + 1).toLowerCase()} work (part ${n + 1})`;
}

/** An HTML body of roughly `paragraphs` × 400 bytes, with headings, lists, links and code. */
export function demoHtml(n: number, paragraphs = 6): string {
  const parts = [`<h2>${pick(SUBJECTS, n)} in practice</h2>`];
  for (let p = 0; p < paragraphs; p++) {
    const sentences = [0, 1, 2, 3].map((s) => pick(SENTENCES, n + p * 5 + s * 3)).join(" ");
    parts.push(`<p>${sentences} See <a href="https://example.com/notes/${n}-${p}">notes ${p + 1}</a>.</p>`);
    if (p === 2) parts.push(`<ul><li>Measure first</li><li>Change one thing</li><li>Measure again</li></ul>`);
    if (p === 4) parts.push(`<pre><code>const answer = ${n % 97};\nconsole.log(answer);</code></pre>`);
  }
  return parts.join("\n");
}
