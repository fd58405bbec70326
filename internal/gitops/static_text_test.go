package gitops

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// varTypeLine is the regular expression varType scans for.
var varTypeLine = regexp.MustCompile(`(apiVersion|kind)["']?\s*:[^\n]*\$\{`)

// varType answers as the regular expression on hand-picked texts and on 20,000 random ones
// made of the pieces that matter (the words, quotes, white space, colons, "${", line breaks).
func TestVarTypeAsRegexp(t *testing.T) {
	cases := []string{
		"apiVersion: v1\nkind: ${KIND}\n",
		"apiVersion: ${GROUP}/v1\n",
		"kind: ConfigMap\nname: ${APP}\n",
		"\"kind\" : \"${K}\"",
		"'apiVersion'\n\n  : x ${A}",
		"kind:\n${K}",
		"kind\"\":${K}",
		"kindkind: ${K}",
		"subkind: ${K}",
		"kind ${K}: x",
		"",
	}
	if !varType([]byte(cases[0])) || varType([]byte(cases[2])) {
		t.Fatal("the plain cases are wrong")
	}
	pieces := []string{"apiVersion", "kind", "ki", "nd", "\"", "'", " ", "\t", "\n", "\r", "\f", "\v", ":", "${", "$", "{", "x"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	matched := 0
	for _, c := range cases {
		want := varTypeLine.MatchString(c)
		if got := varType([]byte(c)); got != want {
			t.Errorf("%q: scan %v, regular expression %v", c, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 100 {
		t.Fatalf("only %d of %d texts match: the random texts test little", matched, len(cases))
	}
}
