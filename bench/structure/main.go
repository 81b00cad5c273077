// Command structure prints the size of each of cairn's packages, as
// docs/architecture.md's "Sizes" table shows it: Go lines and files
// outside tests, exported API (top-level identifiers, functions and
// methods), functions over 80 lines and files over 500 lines. It reads
// the source of the module in the current folder.
//
//	go run ./bench/structure
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// size is one package's figures.
type size struct {
	lines, files, api, longFuncs, bigFiles int
	vaultMethods                           int // methods on *Vault (package vault only)
}

func main() {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}\t{{.ImportPath}}", "./...").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "structure: go list:", err)
		os.Exit(1)
	}
	fmt.Println("| package | lines | files | exported API | functions over 80 lines | files over 500 lines |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		dir, path, _ := strings.Cut(line, "\t")
		name := strings.TrimPrefix(path, "github.com/cairn-dev/cairn/")
		if strings.HasPrefix(name, "bench") || strings.HasPrefix(name, "docs") || name == "cmd/cairn-wordvec" {
			continue
		}
		s, err := measure(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "structure:", err)
			os.Exit(1)
		}
		if s.files == 0 {
			continue
		}
		extra := ""
		if s.vaultMethods > 0 {
			extra = fmt.Sprintf(" (%d methods on Vault)", s.vaultMethods)
		}
		fmt.Printf("| `%s` | %d | %d | %d%s | %d | %d |\n", name, s.lines, s.files, s.api, extra, s.longFuncs, s.bigFiles)
	}
}

// measure reads the package in dir.
func measure(dir string) (size, error) {
	var s size
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return s, err
	}
	fset := token.NewFileSet()
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			return s, err
		}
		f, err := parser.ParseFile(fset, n, src, 0)
		if err != nil {
			return s, err
		}
		s.files++
		lines := strings.Count(string(src), "\n")
		s.lines += lines
		if lines > 500 {
			s.bigFiles++
		}
		for _, d := range f.Decls {
			countDecl(fset, d, &s)
		}
	}
	return s, nil
}

func countDecl(fset *token.FileSet, d ast.Decl, s *size) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() {
			s.api++
		}
		if d.Body != nil && fset.Position(d.End()).Line-fset.Position(d.Pos()).Line > 80 {
			s.longFuncs++
		}
		if d.Recv != nil && len(d.Recv.List) == 1 {
			if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Vault" {
					s.vaultMethods++
				}
			}
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				if spec.Name.IsExported() {
					s.api++
				}
			case *ast.ValueSpec:
				for _, id := range spec.Names {
					if id.IsExported() {
						s.api++
					}
				}
			}
		}
	}
}
