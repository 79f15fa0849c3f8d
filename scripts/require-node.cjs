// `preinstall`, `prestart` and `pretest`: on a Node older than package.json's engines.node, stop
// with one line saying what to run, rather than fail later on a TypeScript file that Node cannot
// load. Plain CommonJS without newer syntax, so that any Node runs it. npm runs a project's own
// preinstall once its dependencies are in place, so an install on an old Node still fetches them
// first; the second `npm install` reuses them.
const fs = require('node:fs');
const path = require('node:path');

const engines = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).engines.node;
const wanted = /^>=(\d+)\.(\d+)$/.exec(engines);
if (!wanted) throw new Error(`package.json's engines.node should be ">=MAJOR.MINOR", not ${JSON.stringify(engines)}`);
const [major, minor] = process.versions.node.split('.').map(Number);
const needMajor = Number(wanted[1]);
const needMinor = Number(wanted[2]);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  console.error(
    `gigmarket needs Node ${needMajor}.${needMinor} or newer, and this is Node ${process.version}: run \`npm install --prefix .node node@24 && export PATH=$PWD/.node/node_modules/.bin:$PATH\`, then \`npm install\` again.`,
  );
  process.exit(1);
}
