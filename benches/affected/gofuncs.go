// Lists the function and method declarations of the Go files under a directory, for the
// test-selection benchmark (run.py): one JSON object a line, with the byte offset just after
// the body's opening brace, where the mutant's panic goes. Test files are left out.
//
//	go run benches/affected/gofuncs.go DIR
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

type function struct {
	File  string `json:"file"`
	Name  string `json:"name"`
	Line  int    `json:"line"`
	After int    `json:"after"`
}

func receiver(decl *ast.FuncDecl) string {
	if decl.Recv == nil || len(decl.Recv.List) == 0 {
		return ""
	}
	t := decl.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name + "."
		default:
			return ""
		}
	}
}

func main() {
	root := os.Args[1]
	out := json.NewEncoder(os.Stdout)
	filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() {
			name := entry.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files := token.NewFileSet()
		parsed, err := parser.ParseFile(files, path, nil, 0)
		if err != nil {
			return nil
		}
		relative, _ := filepath.Rel(root, path)
		for _, decl := range parsed.Decls {
			funcDecl, ok := decl.(*ast.FuncDecl)
			if !ok || funcDecl.Body == nil {
				continue
			}
			out.Encode(function{
				File:  filepath.ToSlash(relative),
				Name:  receiver(funcDecl) + funcDecl.Name.Name,
				Line:  files.Position(funcDecl.Pos()).Line,
				After: files.Position(funcDecl.Body.Lbrace).Offset + 1,
			})
		}
		return nil
	})
}
