// The rule "no call outside the process while a transaction is open", read from the code: in every
// transaction callback (`.transaction(async (tx) => ...)`, an operation's `op.final(...)`) of src/, jobs/ and handlers/, no call
// reaches the payment provider (`….payments.<method>(…)`), a module that talks to the outside
// (the model, webhook delivery, embeddings, feeds, email, GitHub), `fetch`, or an `Outside`
// runner. tests/operations/outside-calls.test.ts proves the same by behaviour for the operations that call out.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
/** Modules whose functions call outside the process. */
const OUTSIDE_MODULES = /(^|\/)(llm\/|outbound\/|webhooks\/safe-delivery|search\/embeddings|sources\/http|notifications\/|auth\/github)/;
/** Methods whose callback runs inside a transaction: Drizzle's, and an operation's final phase (src/http/operation.ts). */
const TRANSACTION_OPENERS = new Set(['transaction', 'final']);
/** Functions of ours elsewhere that call outside through those modules, by the module that exports them. */
const OUTSIDE_WRAPPERS: [RegExp, string[]][] = [[/services\/webhook-delivery/, ['attempt']]];

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(dir, f));
}

/** Names this file imports from a module that calls outside. */
function outsideImports(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    const wrapped = OUTSIDE_WRAPPERS.find(([module]) => module.test(from))?.[1];
    if (!OUTSIDE_MODULES.test(from) && !wrapped) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      if (!wrapped || wrapped.includes(element.name.text)) names.add(element.name.text);
    }
  }
  return names;
}

/** What a call inside a transaction reaches outside the process, if anything. */
function outsideCall(call: ts.CallExpression, imported: Set<string>): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) {
    if (callee.text === 'fetch' || callee.text === 'outside' || imported.has(callee.text)) return callee.text;
  }
  if (ts.isPropertyAccessExpression(callee)) {
    const target = callee.expression;
    const owner = ts.isPropertyAccessExpression(target) ? target.name.text : ts.isIdentifier(target) ? target.text : '';
    if (owner === 'payments') return `payments.${callee.name.text}`;
    if (callee.name.text === 'outside') return callee.getText();
  }
  return undefined;
}

function violations(relative: string): string[] {
  const text = fs.readFileSync(path.join(root, relative), 'utf8');
  const file = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true);
  const imported = outsideImports(file);
  const found: string[] = [];
  const inside = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const reached = outsideCall(node, imported);
      if (reached) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative}:${line + 1} calls ${reached} inside a transaction`);
      }
    }
    ts.forEachChild(node, inside);
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      TRANSACTION_OPENERS.has(node.expression.name.text) &&
      node.arguments[0] &&
      (ts.isArrowFunction(node.arguments[0]) || ts.isFunctionExpression(node.arguments[0]))
    ) {
      inside(node.arguments[0].body);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('no call outside the process inside a transaction', () => {
  it('holds for every transaction callback of src/, jobs/ and handlers/', () => {
    const files = ['src', 'jobs', 'handlers'].flatMap(sourceFiles).filter((f) => !f.includes('generated'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(violations)).toEqual([]);
  });

  it('finds one when it is there', () => {
    const probe = path.join('tests', 'fixtures', `outside-call-probe-${process.pid}.ts`);
    fs.writeFileSync(
      path.join(root, probe),
      `import { askForJson } from '../../src/llm/chat-completions.ts';
export async function bad(ctx: any) {
  await ctx.db.transaction(async (tx: any) => {
    await ctx.payments.createPayment({});
    await askForJson(ctx.config.llm, {});
    await fetch('http://example.test');
  });
  await ctx.payments.createPayment({}); // outside any transaction: fine
}
`,
    );
    try {
      expect(violations(probe).map((v) => v.replace(/^.*?:(\d+) /, '$1 '))).toEqual([
        '4 calls payments.createPayment inside a transaction',
        '5 calls askForJson inside a transaction',
        '6 calls fetch inside a transaction',
      ]);
    } finally {
      fs.rmSync(path.join(root, probe));
    }
  });
});
