package main

import (
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// TestExplainPages pins two pages (a culprit, a fix) at 60 columns and
// checks that no line of any page is wider than that.
func TestExplainPages(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, id := range []string{"visual-tokens", "lower-max-pixels", "empty-cache"} {
		t.Run(id, func(t *testing.T) {
			env, out, errb := testEnv(strings.NewReader(""), true, nil)
			env.TermWidth = func(any) int { return 60 }
			if code := run([]string{"explain", id}, env); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			for _, l := range strings.Split(out.String(), "\n") {
				if n := len([]rune(l)); n > 60 && !strings.HasPrefix(l, "    ") && !strings.Contains(l, "https://") {
					t.Errorf("line of %d columns: %q", n, l)
				}
			}
			g.Assert(t, "explain-"+id, out.Bytes())
		})
	}
}

func TestExplainSuggestsNearestID(t *testing.T) {
	for typo, want := range map[string]string{"visual-token": "visual-tokens", "emptycache": "empty-cache", "lower-max-pixel": "lower-max-pixels"} {
		r := runWith(t, "", "explain", typo)
		if r.code != exitUsage || !strings.Contains(r.stderr, `did you mean "`+want+`"`) {
			t.Errorf("explain %s: exit %d, %q", typo, r.code, r.stderr)
		}
	}
	if r := runWith(t, "", "explain", "zzzzzzzz"); strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a far-off id got a suggestion: %q", r.stderr)
	}
}

// TestRulesListsEveryKind: 'oomdoc rules' names culprits, fixes and
// won't-help ids, so that every id a report prints can be looked up.
func TestRulesListsEveryKind(t *testing.T) {
	r := runWith(t, "", "rules")
	for _, want := range []string{"Culprits", "Fixes:", "Won't help", "  visual-tokens ", "  lower-max-pixels ", "  empty-cache "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rules lacks %q", want)
		}
	}
}
