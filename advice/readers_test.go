package advice

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// sources is the non-test Go source of a package folder.
func sources(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestEveryNoticeHasAReader: every notice id the parser can emit is read
// by the package noticeReaders names (a literal use outside that table),
// so that no parsed fact is silently dropped.
func TestEveryNoticeHasAReader(t *testing.T) {
	parserSrc := sources(t, "parser")
	var ids []string
	cues := regexp.MustCompile(`(?s)func noticeCues\(\) \[\]noticeCue \{.*?\n}\n`).FindString(parserSrc)
	for _, m := range regexp.MustCompile(`\{"([a-z0-9-]+)", "`).FindAllStringSubmatch(cues, -1) {
		ids = append(ids, m[1])
	}
	for _, m := range regexp.MustCompile(`Notice\{ID: "([a-z0-9-]+)"`).FindAllStringSubmatch(parserSrc, -1) {
		ids = append(ids, m[1])
	}
	if len(ids) < 20 {
		t.Fatalf("found only %d notice ids in the parser's source: the pattern is stale", len(ids))
	}
	table := regexp.MustCompile(`(?s)func noticeReaders\(\).*?\n}\n`)
	src := map[string]string{
		"advice": table.ReplaceAllString(sources(t, "advice"), ""),
		"rules":  sources(t, "rules"),
		"render": sources(t, "render"),
	}
	readers := noticeReaders()
	for _, id := range ids {
		pkg, ok := readers[id]
		if !ok {
			t.Errorf("notice %q has no reader (add one, and list it in noticeReaders)", id)
			continue
		}
		if !strings.Contains(src[pkg], `"`+id+`"`) {
			t.Errorf("notice %q: noticeReaders says %s reads it, but %s never names it", id, pkg, pkg)
		}
	}
}

// TestEveryContextFieldHasAReader: every field of parser.Context is read
// by rules, advice or render.
func TestEveryContextFieldHasAReader(t *testing.T) {
	all := sources(t, "rules") + sources(t, "advice") + sources(t, "render")
	typ := reflect.TypeOf(parser.Context{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if !regexp.MustCompile(`\.` + name + `\b`).MatchString(all) {
			t.Errorf("parser.Context.%s has no reader", name)
		}
	}
}
