package saferetire

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidDigest(t *testing.T) {
	hex := strings.Repeat("0a", 32)
	cases := []struct {
		name, in string
		want     bool
	}{
		{"digest", "sha256:" + hex, true},
		{"no algorithm", hex, false},
		{"other algorithm", "sha512:" + hex, false},
		{"upper case", "sha256:" + strings.ToUpper(hex), false},
		{"short", "sha256:" + hex[2:], false},
		{"not hex", "sha256:" + strings.Repeat("zz", 32), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidDigest(tc.in); got != tc.want {
				t.Errorf("ValidDigest(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestPlanChanges(t *testing.T) {
	claim := PlanObject{Object: "PersistentVolumeClaim apps/data", UID: "u1", ResourceVersion: "10"}
	step := PlanStep{Step: "stage 4 (delete by hand) of PersistentVolumeClaim apps/data", Command: "kubectl -n apps delete persistentvolumeclaim data"}
	was := LivePlan{Context: "prod", Server: "https://prod", Base: "b1", Objects: []PlanObject{claim}, Steps: []PlanStep{step}}
	with := func(f func(p *LivePlan)) LivePlan {
		p := was
		p.Objects = append([]PlanObject(nil), was.Objects...)
		p.Steps = append([]PlanStep(nil), was.Steps...)
		f(&p)
		return p
	}
	cases := []struct {
		name string
		now  LivePlan
		want string
	}{
		{"same", was, ""},
		{"context", with(func(p *LivePlan) { p.Context = "staging" }), `the connection is context "staging" (https://prod) now, was context "prod" (https://prod)`},
		{"base", with(func(p *LivePlan) { p.Base = "b2" }), "the base is commit b2 now, was b1"},
		{"candidate", with(func(p *LivePlan) { p.Candidate = "c1" }), "the candidate is commit c1 now, was the working tree"},
		{"resourceVersion", with(func(p *LivePlan) { p.Objects[0].ResourceVersion = "11" }), "PersistentVolumeClaim apps/data changed: resourceVersion 11 now, was 10"},
		{"replaced", with(func(p *LivePlan) { p.Objects[0].UID = "u2" }), "PersistentVolumeClaim apps/data was replaced: UID u2 now, was u1"},
		{"gone", with(func(p *LivePlan) { p.Objects[0] = PlanObject{Object: claim.Object} }), "PersistentVolumeClaim apps/data no longer exists"},
		{"new pod", with(func(p *LivePlan) {
			p.Objects = append([]PlanObject{{Object: "Pod apps/late", UID: "u3", ResourceVersion: "12"}}, p.Objects...)
		}), "Pod apps/late is new in the plan"},
		{"dropped", with(func(p *LivePlan) { p.Objects, p.Steps = nil, nil }), "PersistentVolumeClaim apps/data is no longer in the plan"},
		{"step", with(func(p *LivePlan) { p.Steps[0].Command += " --now" }), `step 1 is now "stage 4 (delete by hand) of PersistentVolumeClaim apps/data" (kubectl -n apps delete persistentvolumeclaim data --now), was "stage 4 (delete by hand) of PersistentVolumeClaim apps/data" (kubectl -n apps delete persistentvolumeclaim data)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(planChanges(was, tc.now), "; "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A plan record is believed only when its bytes hash to the digest asked for.
func TestReviewedPlanChecksItsDigest(t *testing.T) {
	dir := t.TempDir()
	p := LivePlan{Context: "prod", Objects: []PlanObject{}, Steps: []PlanStep{}}
	b, err := p.encode()
	if err != nil {
		t.Fatal(err)
	}
	d := digestOf(b)
	if err := recordPlan(dir, d, b); err != nil {
		t.Fatal(err)
	}
	if got, ok := reviewedPlan(dir, d); !ok || got.Context != "prod" {
		t.Fatalf("record not read back: %+v %v", got, ok)
	}
	forged := strings.Replace(string(b), "prod", "dev", 1)
	if err := os.WriteFile(filepath.Join(dir, strings.TrimPrefix(d, "sha256:")+".json"), []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok := reviewedPlan(dir, d); ok {
		t.Fatalf("a record that does not hash to its digest was believed: %+v", got)
	}
}

// The digest is the SHA-256 of the plan's compact JSON, fields in declaration order, without
// HTML escaping: what the recipe in docs/safe-retire.md computes from the json output, whose
// keys are sorted (TestDigestRecipeOnPrintedJSON).
func TestDigestEncoding(t *testing.T) {
	p := LivePlan{Context: "prod", Server: "https://prod", Base: "b1", Objects: []PlanObject{{Object: "Pod a/b", UID: "u", ResourceVersion: "1"}},
		Steps: []PlanStep{{Step: "evict", Command: "echo '{}' | kubectl create --raw /x -f - && true"}}}
	b, err := p.encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"context":"prod","server":"https://prod","base":"b1","candidate":"","objects":[{"object":"Pod a/b","uid":"u","resourceVersion":"1"}],` +
		`"steps":[{"step":"evict","command":"echo '{}' | kubectl create --raw /x -f - && true"}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if d := digestOf(b); d != "sha256:"+fmt.Sprintf("%x", sha256.Sum256([]byte(want))) {
		t.Fatalf("digest %s", d)
	}
}
