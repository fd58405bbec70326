package report

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// The one shape of a note in every report: code, subject, message.
func TestNoteJSON(t *testing.T) {
	n := Note{Code: NoteHelmReleaseDrifted, Subject: ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "a", Name: "b"}, Message: "HelmRelease a/b drifted"}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"code":"helm-release-drifted","subject":{"group":"helm.toolkit.fluxcd.io","kind":"HelmRelease","namespace":"a","name":"b"},"message":"HelmRelease a/b drifted"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if n.String() != n.Message {
		t.Errorf("String() = %q", n.String())
	}
}

// Every note code is kebab-case, listed once, and a row of docs/report.md's reason table whose
// "on" is note or warning; every such row is a code NoteCodes lists (none renamed or removed).
func TestNoteCodesDocumented(t *testing.T) {
	md, err := os.ReadFile("../../docs/report.md")
	if err != nil {
		t.Fatal(err)
	}
	documented, err := Documented(md)
	if err != nil {
		t.Fatal(err)
	}
	codes := NoteCodes()
	for i, c := range codes {
		if !Reason(c).Valid() || slices.Index(codes, c) != i {
			t.Errorf("%q is not kebab-case or is listed twice", c)
		}
		if d, ok := documented[Reason(c)]; !ok || (d.Where != "note" && d.Where != "warning") {
			t.Errorf("note code %q is not a note or warning row of docs/report.md's reason table (%+v)", c, d)
		}
	}
	for r, d := range documented {
		if (d.Where == "note" || d.Where == "warning") && !slices.Contains(codes, NoteCode(r)) {
			t.Errorf("docs/report.md documents note code %q, which NoteCodes lacks", r)
		}
	}
}
