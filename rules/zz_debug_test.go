package rules

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/oomdoc/oomdoc/models"
)

func TestZZDebug(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	cs, cat := All(), models.Load()
	corpus := corpusCases(t, cs, cat)
	extra := culpritCases(t, cs, cat)
	for k := 0; k < folds; k++ {
		train := append([]labelled(nil), extra...)
		var test []labelled
		for i, lc := range corpus {
			if i%folds == k {
				test = append(test, lc)
			} else {
				train = append(train, lc)
			}
		}
		w := fitWeights(train, cs)
		for i := range test {
			lc := &test[i]
			v := judge(lc, cs, w)
			mark := "ok "
			if !v.right1 {
				mark = "MISS"
				if v.right3 {
					mark = "miss3"
				}
			}
			u := "D"
			if lc.undecidable {
				u = "U"
			}
			var parts []string
			for j, fd := range score(lc.a, cs, w) {
				if j >= 4 {
					break
				}
				parts = append(parts, fmt.Sprintf("%s %.2f %s %v", fd.Culprit, fd.Confidence, fd.Basis, fd.Signals))
			}
			fmt.Printf("%s %s %s want=%s%v ctx=%s thin=%v\n    %s\n", mark, u, lc.name, lc.root, lc.acceptable, lc.a.context, lc.a.thin, strings.Join(parts, "\n    "))
		}
	}
}
