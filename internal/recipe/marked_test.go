package recipe_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/etcdsim/etcdsim/discovery"
	"github.com/etcdsim/etcdsim/election"
	"github.com/etcdsim/etcdsim/internal/recipe"
	"github.com/etcdsim/etcdsim/lock"
	"github.com/etcdsim/etcdsim/recipes/barrier"
	"github.com/etcdsim/etcdsim/recipes/queue"
	"github.com/etcdsim/etcdsim/recipes/rwmutex"
)

// The rule every deliberately broken recipe of every family follows, so
// that a reader finds each one the same way:
//
//   - its constructor — the function its registry entry's New names — is
//     unexported: a broken recipe is reached by name, through the
//     registry, never built by accident;
//   - it is the first declaration of a file of its own, broken_*.go (or
//     upstream_*.go for a reproduction of a report against etcd);
//   - the first line of its doc comment begins with the marker, and the
//     doc names the report it reproduces ("#N") where its entry has one;
//   - the marker begins no other line of any comment in the family.
//
// The check reads source files, so it lives here, in a test: the registry
// itself never does.

// marker begins the doc comment of every broken recipe's constructor.
const marker = "BROKEN (deliberately):"

// module is the path the families' packages are found under.
const module = "github.com/etcdsim/etcdsim/"

// brokenRecipe is what the check needs of a registered broken recipe.
type brokenRecipe struct {
	name     string // "lock/setnx"
	upstream string // the report's URL, or ""
	dir      string // the directory of its constructor's package
	file     string // the base name of the file its constructor is in
	fn       string // its constructor's name; "" if it is no named function
}

func TestBrokenRecipesMarked(t *testing.T) {
	root := filepath.Join("..", "..")
	var broken []brokenRecipe
	broken = append(broken, brokenOf(root, "lock", slices.Concat(lock.Recipes(), lock.UpstreamRecipes()))...)
	broken = append(broken, brokenOf(root, "election", slices.Concat(election.Recipes(), election.UpstreamRecipes()))...)
	broken = append(broken, brokenOf(root, "discovery", discovery.Registrars())...)
	broken = append(broken, brokenOf(root, "discovery", discovery.Resolvers())...)
	broken = append(broken, brokenOf(root, "rwmutex", slices.Concat(rwmutex.Recipes(), rwmutex.UpstreamRecipes()))...)
	broken = append(broken, brokenOf(root, "queue", queue.Recipes())...)
	broken = append(broken, brokenOf(root, "barrier", slices.Concat(barrier.Recipes(), barrier.UpstreamRecipes()))...)
	broken = append(broken, brokenOf(root, "plain-barrier", slices.Concat(barrier.PlainRecipes(), barrier.UpstreamPlainRecipes()))...)
	if len(broken) < 10 {
		t.Fatalf("only %d broken recipes registered", len(broken))
	}
	dirs := []string{filepath.Join(root, "lock"), filepath.Join(root, "election"), filepath.Join(root, "discovery"),
		filepath.Join(root, "lock", "rwmutex"), filepath.Join(root, "lock", "queue"),
		filepath.Join(root, "lock", "barrier")}
	if err := checkMarked(dirs, broken); err != nil {
		t.Error(err)
	}
}

// brokenOf finds the constructor of every broken recipe of rs.
func brokenOf[New any](root, family string, rs []recipe.Recipe[New]) []brokenRecipe {
	var out []brokenRecipe
	for _, r := range rs {
		if !r.Broken {
			continue
		}
		b := brokenRecipe{name: family + "/" + r.Name, upstream: r.Upstream}
		f := runtime.FuncForPC(reflect.ValueOf(r.New).Pointer())
		// "github.com/etcdsim/etcdsim/lock.newSetNX"; a closure is
		// "….lock.init.func1", a method "….(*T).m".
		full := f.Name()
		slash := strings.LastIndexByte(full, '/')
		pkg, fn, _ := strings.Cut(full[slash+1:], ".")
		if !strings.Contains(fn, ".") {
			b.fn = fn
		}
		file, _ := f.FileLine(f.Entry())
		b.dir = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(full[:slash+1]+pkg, module)))
		b.file = filepath.Base(file)
		out = append(out, b)
	}
	return out
}

// checkMarked reports every way the broken recipes, and the marked
// comments of the non-test Go files of dirs, break the rule.
func checkMarked(dirs []string, broken []brokenRecipe) error {
	var errs []error
	ctors := map[string]bool{} // dir/file/fn of each broken recipe's constructor
	for _, b := range broken {
		if err := checkConstructor(b); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.name, err))
		}
		ctors[filepath.Join(b.dir, b.file, b.fn)] = true
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return err
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			if err := checkFile(name, ctors); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// checkConstructor checks where b's constructor is and what its doc says.
func checkConstructor(b brokenRecipe) error {
	switch {
	case b.fn == "":
		return errors.New("its New is no named function: give it a constructor of its own, in a file of its own")
	case unicode.IsUpper([]rune(b.fn)[0]):
		return fmt.Errorf("constructor %s is exported: unexport it, and reach the recipe by name through the registry", b.fn)
	}
	if ok, _ := path.Match("broken_*.go", b.file); !ok {
		if ok, _ := path.Match("upstream_*.go", b.file); !ok {
			return fmt.Errorf("constructor %s is in %s: want a file of its own, broken_*.go (upstream_*.go for a report against etcd)", b.fn, b.file)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(b.dir, b.file), nil, parser.ParseComments)
	if err != nil {
		return err
	}
	first := firstDecl(f)
	fd, ok := first.(*ast.FuncDecl)
	if !ok || fd.Recv != nil || fd.Name.Name != b.fn {
		return fmt.Errorf("%s: the first declaration is %s: want constructor %s, whose doc comment begins %q", b.file, declName(first), b.fn, marker)
	}
	doc := fd.Doc.Text()
	if !strings.HasPrefix(doc, marker) {
		return fmt.Errorf("%s: the doc comment of %s does not begin %q", b.file, b.fn, marker)
	}
	if b.upstream != "" {
		if num := b.upstream[strings.LastIndexByte(b.upstream, '/')+1:]; !strings.Contains(doc, "#"+num) {
			return fmt.Errorf("%s: the doc comment of %s does not name its report, #%s (%s)", b.file, b.fn, num, b.upstream)
		}
	}
	return nil
}

// checkFile reports a comment line of name that begins with the marker
// but is not the doc of a registered broken recipe's constructor, and a
// broken_*.go file with no marked constructor.
func checkFile(name string, ctors map[string]bool) error {
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	docs := map[*ast.CommentGroup]string{} // constructor docs, by the function they document
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil && fd.Recv == nil {
			docs[fd.Doc] = fd.Name.Name
		}
	}
	var errs []error
	marked := 0
	for _, cg := range f.Comments {
		if !slices.ContainsFunc(strings.Split(cg.Text(), "\n"), func(l string) bool { return strings.HasPrefix(l, marker) }) {
			continue
		}
		fn, isDoc := docs[cg]
		if !isDoc || !ctors[filepath.Join(filepath.Dir(name), filepath.Base(name), fn)] {
			errs = append(errs, fmt.Errorf("%s: a comment begins %q but documents no registered broken recipe's constructor", name, marker))
			continue
		}
		marked++
	}
	if ok, _ := path.Match("broken_*.go", filepath.Base(name)); ok && marked == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no registered broken recipe's constructor is marked %q here", name, marker))
	}
	return errors.Join(errs...)
}

// firstDecl is f's first declaration after its imports, or nil.
func firstDecl(f *ast.File) ast.Decl {
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		return d
	}
	return nil
}

func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			return "method " + d.Name.Name
		}
		return "func " + d.Name.Name
	case *ast.GenDecl:
		if len(d.Specs) > 0 {
			if ts, ok := d.Specs[0].(*ast.TypeSpec); ok {
				return "type " + ts.Name.Name
			}
		}
		return d.Tok.String()
	}
	return "nothing"
}

// The check finds each way a broken recipe's file can break the rule, and
// passes a file that follows it.
func TestCheckMarkedFindsMisplacedMarkers(t *testing.T) {
	const story = "// BROKEN (deliberately): a lock without a lease, as in vault #2526.\n"
	const ctor = "func newSetNX() {}\n"
	tests := []struct {
		name   string
		file   string // its base name
		src    string // after "package x\n\n"
		fn     string // the registered constructor
		extra  string // another file's source, broken_extra.go, if any
		wantOK bool
		want   string
	}{
		{name: "marked constructor first", file: "broken_setnx.go", fn: "newSetNX",
			src: story + "//\n// newSetNX builds it.\n" + ctor + "\ntype setnx struct{}\n", wantOK: true},
		{name: "marker in the second paragraph", file: "broken_setnx.go", fn: "newSetNX",
			src: "// newSetNX builds it.\n//\n" + story + ctor, want: "the doc comment of newSetNX does not begin"},
		{name: "marker on the type", file: "broken_setnx.go", fn: "newSetNX",
			src: ctor + "\n" + story + "type setnx struct{}\n", want: "does not begin"},
		{name: "type before the constructor", file: "broken_setnx.go", fn: "newSetNX",
			src: "type setnx struct{}\n\n" + story + ctor, want: "the first declaration is type setnx"},
		{name: "exported constructor", file: "broken_setnx.go", fn: "NewSetNX",
			src: story + "func NewSetNX() {}\n", want: "constructor NewSetNX is exported"},
		{name: "closure", file: "broken_setnx.go", fn: "",
			src: story + ctor, want: "no named function"},
		{name: "not a file of its own", file: "recipes.go", fn: "newSetNX",
			src: story + ctor, want: "want a file of its own"},
		{name: "report not named", file: "broken_setnx.go", fn: "newSetNX",
			src: "// BROKEN (deliberately): a lock without a lease.\n" + ctor, want: "does not name its report, #2526"},
		{name: "a marked comment too many", file: "broken_setnx.go", fn: "newSetNX",
			src: story + ctor, extra: "package x\n\n" + story + "func newOther() {}\n",
			want: "broken_extra.go: a comment begins"},
		{name: "a broken file without its marker", file: "broken_setnx.go", fn: "newSetNX",
			src: story + ctor, extra: "package x\n\n// newOther builds it.\nfunc newOther() {}\n",
			want: "broken_extra.go: no registered broken recipe's constructor is marked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, src string) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(tt.file, "package x\n\n"+tt.src)
			if tt.extra != "" {
				write("broken_extra.go", tt.extra)
			}
			b := brokenRecipe{name: "lock/setnx", upstream: "https://github.com/hashicorp/vault/issues/2526", dir: dir, file: tt.file, fn: tt.fn}
			err := checkMarked([]string{dir}, []brokenRecipe{b})
			switch {
			case tt.wantOK && err != nil:
				t.Errorf("checkMarked: %v", err)
			case !tt.wantOK && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("checkMarked: %v; want an error saying %q", err, tt.want)
			}
		})
	}
}
