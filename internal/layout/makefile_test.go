package layout

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// makefile is what the race-lists check needs of the Makefile: its
// variables, its rules' prerequisites and recipe lines.
type makefile struct {
	vars  map[string]string   // NAME = value, continuation lines joined
	deps  map[string][]string // rule → its prerequisites
	lines map[string][]string // rule → its recipe lines, tab dropped
}

var (
	varLine  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*) *[?:]?= *(.*)$`)
	ruleLine = regexp.MustCompile(`^([A-Za-z0-9_.-]+):([^=].*)?$`)
	varRef   = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	// A backslash at the end of a line and the blanks around it are one
	// space to make.
	continuation = regexp.MustCompile(`[ \t]*\\\n[ \t]*`)
)

// parseMakefile reads the variables, rules and recipe lines of a Makefile
// written the way ours is: no includes, no pattern rules, no define.
func parseMakefile(text string) makefile {
	mk := makefile{vars: map[string]string{}, deps: map[string][]string{}, lines: map[string][]string{}}
	text = continuation.ReplaceAllString(text, " ")
	rule := ""
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if recipe, ok := strings.CutPrefix(line, "\t"); ok {
			if rule != "" {
				mk.lines[rule] = append(mk.lines[rule], recipe)
			}
			continue
		}
		rule = ""
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := varLine.FindStringSubmatch(line); m != nil {
			mk.vars[m[1]] = strings.TrimSpace(m[2])
			continue
		}
		if m := ruleLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], ".") {
			rule = m[1]
			mk.deps[rule] = strings.Fields(m[2])
		}
	}
	return mk
}

// expand replaces each $(NAME) of a Makefile variable with its value, as
// make would, and $$ with the $ the shell sees. Names it does not know
// (a function call like $(subst ...)) stay as they are.
func (mk makefile) expand(s string) string {
	for range 10 {
		next := varRef.ReplaceAllStringFunc(s, func(ref string) string {
			if v, ok := mk.vars[varRef.FindStringSubmatch(ref)[1]]; ok {
				return v
			}
			return ref
		})
		if next == s {
			break
		}
		s = next
	}
	return strings.ReplaceAll(s, "$$", "$")
}

// reachable returns the rules that `make target` runs: its prerequisites
// and the targets its recipe hands to $(MAKE), and theirs.
func (mk makefile) reachable(target string) []string {
	seen := []string{target}
	for i := 0; i < len(seen); i++ {
		r := seen[i]
		next := slices.Clone(mk.deps[r])
		for _, line := range mk.lines[r] {
			if strings.Contains(line, "$(MAKE)") {
				next = append(next, strings.Fields(line)...)
			}
		}
		for _, n := range next {
			if _, ok := mk.deps[n]; ok && !slices.Contains(seen, n) {
				seen = append(seen, n)
			}
		}
	}
	return seen
}

// goTest is one `go test` command of a recipe.
type goTest struct {
	rule      string
	race      bool     // -race
	short     bool     // -short
	run       string   // -run's pattern, "" for every test
	fromLists bool     // -run names one of raceLists
	skip      string   // -skip's pattern, "" for none
	pkgs      []string // package patterns, relative to the module's root ("." or "x/y" or "x/...")
}

// valueFlags are go test's flags that take a value; the value may follow
// as the next word.
var valueFlags = []string{"-run", "-skip", "-bench", "-benchtime", "-count", "-p", "-parallel", "-timeout", "-cpu", "-tags", "-o"}

// goTests returns the `go test` commands in the recipes of rules, with
// variables expanded and the directory a `cd dir &&` before one moves to.
func (mk makefile) goTests(rules []string) ([]goTest, error) {
	var out []goTest
	for _, r := range rules {
		for _, line := range mk.lines[r] {
			dir := "."
			for seg := range strings.SplitSeq(line, "&&") {
				words, err := shellWords(mk.expand(strings.TrimSpace(seg)))
				if err != nil {
					return nil, fmt.Errorf("rule %s: %q: %w", r, line, err)
				}
				if len(words) >= 2 && words[0] == "cd" {
					dir = path.Join(dir, words[1])
					continue
				}
				if len(words) < 2 || words[1] != "test" || !strings.Contains(seg, "$(GO)") {
					continue
				}
				gt := goTest{rule: r, fromLists: slices.ContainsFunc(raceLists, func(l string) bool { return strings.Contains(seg, "$("+l+")") })}
				for i := 2; i < len(words); i++ {
					w := words[i]
					name, val, hasVal := strings.Cut(w, "=")
					switch {
					case w == "-race":
						gt.race = true
					case w == "-short":
						gt.short = true
					case slices.Contains(valueFlags, name):
						if !hasVal && i+1 < len(words) {
							i++
							val = words[i]
						}
						switch name {
						case "-run":
							gt.run = val
						case "-skip":
							gt.skip = val
						}
					case strings.HasPrefix(w, "."):
						gt.pkgs = append(gt.pkgs, path.Join(dir, w))
					}
				}
				if len(gt.pkgs) == 0 {
					gt.pkgs = []string{dir}
				}
				out = append(out, gt)
			}
		}
	}
	return out, nil
}

// covers reports whether the command runs the test called name in the
// package at rel (relative to the module's root). Its -run pattern has no
// slash, so it is matched against the top-level name, as go test does.
func (gt goTest) covers(rel, name string) (bool, error) {
	match := true
	for _, pat := range []struct {
		flag, re string
		want     bool
	}{{"-run", gt.run, true}, {"-skip", gt.skip, false}} {
		if pat.re == "" {
			continue
		}
		if strings.Contains(pat.re, "/") {
			return false, fmt.Errorf("rule %s: %s %q matches subtests, which this check does not follow", gt.rule, pat.flag, pat.re)
		}
		re, err := regexp.Compile(pat.re)
		if err != nil {
			return false, fmt.Errorf("rule %s: %s %q: %w", gt.rule, pat.flag, pat.re, err)
		}
		match = match && re.MatchString(name) == pat.want
	}
	return match && slices.ContainsFunc(gt.pkgs, func(p string) bool {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			return base == "." || rel == base || strings.HasPrefix(rel, base+"/")
		}
		return p == rel
	}), nil
}

// shellWords splits a command into words the way sh would for the
// commands in our recipes: blanks separate words, single and double quotes
// group them. A pipe, a semicolon or a command substitution ($(...)) ends
// what is read: the words before it are the command.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == ';' || c == '|' || strings.HasPrefix(s[i:], "$("):
			if inWord {
				words = append(words, cur.String())
			}
			return words, nil
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
