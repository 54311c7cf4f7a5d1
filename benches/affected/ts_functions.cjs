// Lists the functions of TypeScript and JavaScript files for the test-selection benchmark
// (run.py): function declarations, methods, accessors and constructors of classes and object
// literals, and function or arrow expressions with a block body bound to a name. One JSON object
// a line, with the offset just after the body's opening brace, where the mutant's throw goes.
// Overload signatures and abstract methods (no body) are left out.
//
//   node benches/affected/ts_functions.cjs TYPESCRIPT_MODULE_DIR ROOT FILE...
const path = require("path");
const fs = require("fs");
const ts = require(process.argv[2]);
const root = process.argv[3];

function nameOf(node) {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ||
      ts.isPrivateIdentifier(node.name) || ts.isNumericLiteral(node.name))) {
    return node.name.text;
  }
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) && parent.name && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return null;
}

function ownerOf(node) {
  for (let p = node.parent; p; p = p.parent) {
    if ((ts.isClassDeclaration(p) || ts.isClassExpression(p)) && p.name) return p.name.text + ".";
    if (ts.isFunctionLike(p)) return "";
  }
  return "";
}

for (const file of process.argv.slice(4)) {
  const text = fs.readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const relative = path.relative(root, file).split(path.sep).join("/");
  const visit = (node) => {
    const isFunction = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node);
    if (isFunction && node.body && ts.isBlock(node.body)) {
      const name = nameOf(node);
      if (name) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        process.stdout.write(JSON.stringify({
          file: relative, name: ownerOf(node) + name, line, after: node.body.getStart(source) + 1,
        }) + "\n");
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
