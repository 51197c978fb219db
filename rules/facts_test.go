package rules

import (
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
)

// factsOf parses a log written in the test and derives the facts of its
// first failure.
func factsOf(t *testing.T, log string) *Facts {
	t.Helper()
	res, err := parser.Parse(strings.NewReader(log), "in.log")
	if err != nil || len(res.Events) == 0 {
		t.Fatalf("parse: %v, %d events", err, len(res.Events))
	}
	return NewFacts(Input{Result: res, Catalog: models.Load()}, 0)
}
