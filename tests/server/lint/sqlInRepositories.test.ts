// The "one place for SQL" lint rule (docs/architecture.md "Where SQL lives") through ESLint's own
// API and the project's eslint.config.js: a service importing drizzle-orm or the schema fails,
// a repository file and a type import do not.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const RULE = "@typescript-eslint/no-restricted-imports";
// Only the rule under test, without the type-checked rules: they need the TypeScript project
// service, which took this file from seconds to 40 s on a two-core machine.
const eslint = new ESLint({
  cwd: process.cwd(),
  ruleFilter: ({ ruleId }) => ruleId === RULE,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

async function sqlErrors(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === RULE || m.fatal).map((m) => m.message);
}

// Real module paths, so the files' globs (repository or not) are the tree's own.
const SERVICE = "server/modules/notifications/center.ts";
const REPOSITORY = "server/modules/notifications/repository.ts";
const NAMED_REPOSITORY = "server/modules/notifications/centerRepository.ts";

const queries = `import { eq } from "drizzle-orm";\nimport { notifications } from "../../db/schema.ts";\nexport const q = [eq, notifications];\n`;

describe("SQL lives in repository files", { timeout: 120_000 }, () => {
  it("refuses drizzle-orm and the schema in a service file", async () => {
    const errors = await sqlErrors(SERVICE, queries);
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(/SQL lives in the module's repository files/);
  });

  it("refuses a table file and a drizzle-orm subpath", async () => {
    const code = `import { pgTable } from "drizzle-orm/pg-core";\nimport { notifications } from "../../db/tables/notifications.ts";\nexport const q = [pgTable, notifications];\n`;
    expect(await sqlErrors(SERVICE, code)).toHaveLength(2);
  });

  it("allows them in repository.ts and *Repository.ts", async () => {
    expect(await sqlErrors(REPOSITORY, queries)).toEqual([]);
    expect(await sqlErrors(NAMED_REPOSITORY, queries)).toEqual([]);
  });

  it("holds for every module: no file outside the repository files is excepted", async () => {
    // The members' services were the last exception; their queries live in members/repository.ts.
    for (const file of ["server/modules/members/service.ts", "server/modules/members/invitations.ts"]) {
      expect(await sqlErrors(file, queries), file).toHaveLength(2);
    }
  });

  it("allows type imports anywhere (a row's type is not a query)", async () => {
    const code = `import type { SQL } from "drizzle-orm";\nimport type { notifications } from "../../db/schema.ts";\nexport type T = [SQL, typeof notifications.$inferSelect];\n`;
    expect(await sqlErrors(SERVICE, code)).toEqual([]);
  });
});
