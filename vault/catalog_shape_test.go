package vault

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// lockFreeCatalog are the catalog's methods that need no lock of its own,
// with why: the rest of the package may call them as it likes.
var lockFreeCatalog = map[string]string{
	"pathOf":   "reads the shared graph, fixed once loaded, which locks itself",
	"graphFor": "picks one of the two graphs, fixed once loaded",
	"persist":  "takes its saving lock, then the catalog's for its copy of the entries, and writes the file with it let go",
}

// TestCatalogOwnsItsLock checks the catalog's shape in the package's code:
// outside its own files (catalog*.go) nothing reads or writes a field of
// the catalog, its lock included, and every catalog method called from
// there takes the lock itself (its first statement is c.mu.Lock(), or its
// whole body returns what such a method does) or is one of lockFreeCatalog. The lock order then holds by construction: the
// catalog's lock is only ever held inside those methods, which call out to
// nothing but the link graphs.
func TestCatalogOwnsItsLock(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	fields, locking := catalogShape(files)
	if len(fields) == 0 || !fields["mu"] {
		t.Fatalf("no catalog struct with a mu field found (fields: %v)", fields)
	}
	var bad []string
	for name, f := range files {
		if strings.HasPrefix(name, "catalog") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			inner, ok := sel.X.(*ast.SelectorExpr)
			if !ok || inner.Sel.Name != "catalog" {
				return true
			}
			what := sel.Sel.Name
			pos := fset.Position(sel.Pos())
			switch {
			case fields[what]:
				bad = append(bad, pos.String()+": reads the catalog's field "+what)
			case !locking[what] && lockFreeCatalog[what] == "":
				bad = append(bad, pos.String()+": calls catalog."+what+", which expects the catalog's lock held")
			}
			return true
		})
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// catalogShape reads the catalog struct's field names and, for each of
// its methods, whether it takes the catalog's lock first.
func catalogShape(files map[string]*ast.File) (fields, locking map[string]bool) {
	fields, locking = map[string]bool{}, map[string]bool{}
	delegates := map[string]string{} // method → the catalog method its body only returns
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "catalog" {
						continue
					}
					for _, fl := range ts.Type.(*ast.StructType).Fields.List {
						for _, n := range fl.Names {
							fields[n.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				star, ok := d.Recv.List[0].Type.(*ast.StarExpr)
				if !ok {
					continue
				}
				if id, ok := star.X.(*ast.Ident); !ok || id.Name != "catalog" {
					continue
				}
				locking[d.Name.Name] = takesLockFirst(d)
				delegates[d.Name.Name] = onlyReturns(d)
			}
		}
	}
	for m, to := range delegates {
		if !locking[m] && to != "" && locking[to] {
			locking[m] = true
		}
	}
	return fields, locking
}

// onlyReturns is the name of the receiver's method a method's body is
// "return c.name(...)", if it is only that.
func onlyReturns(d *ast.FuncDecl) string {
	if d.Body == nil || len(d.Body.List) != 1 {
		return ""
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return ""
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if recv, ok := sel.X.(*ast.Ident); !ok || len(d.Recv.List[0].Names) != 1 || recv.Name != d.Recv.List[0].Names[0].Name {
		return ""
	}
	return sel.Sel.Name
}

// takesLockFirst says whether a method's first statement is c.mu.Lock().
func takesLockFirst(d *ast.FuncDecl) bool {
	if d.Body == nil || len(d.Body.List) == 0 {
		return false
	}
	es, ok := d.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Lock" {
		return false
	}
	mu, ok := sel.X.(*ast.SelectorExpr)
	return ok && mu.Sel.Name == "mu"
}
