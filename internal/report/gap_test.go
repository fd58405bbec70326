package report

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestGapString(t *testing.T) {
	g := Gap{Op: OpList, Subject: TypeID("backups.velero.io"), Reason: GapForbidden, What: "listing backups.velero.io", Error: "forbidden: no"}
	if g.String() != "listing backups.velero.io: forbidden: no" {
		t.Errorf("String() = %q", g.String())
	}
	g.Error = ""
	if g.String() != "listing backups.velero.io" {
		t.Errorf("String() without an error = %q", g.String())
	}
}

func TestObjectIDString(t *testing.T) {
	for _, tc := range []struct {
		id   ObjectID
		want string
	}{
		{TypeID("persistentvolumeclaims"), "persistentvolumeclaims"},
		{TypeID("backups.velero.io"), "backups.velero.io"},
		{ObjectID{Group: "velero.io", Resource: "backups", Namespace: "velero"}, "backups.velero.io -n velero"},
		{ObjectID{Group: "velero.io", Resource: "backups", Namespace: "velero", Name: "nightly"}, "backups.velero.io velero/nightly"},
		{ObjectID{Version: "v1", Resource: "namespaces", Name: "prod"}, "namespaces/prod"},
		{ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: "flux-system", Name: "apps"}, "Kustomization.kustomize.toolkit.fluxcd.io flux-system/apps"},
		{ObjectID{Group: "apps", Version: "v1"}, "apps"},
		{ObjectID{}, ""},
	} {
		if got := tc.id.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.id, got, tc.want)
		}
	}
	if n := TypeID("secrets").Named("x"); n.Name != "x" || n.Resource != "secrets" {
		t.Errorf("Named: %+v", n)
	}
}

// The one shape of a gap in every report: op, subject, reason, what, and error when there is one.
func TestGapJSON(t *testing.T) {
	g := Gap{Op: OpGet, Subject: ObjectID{Version: "v1", Resource: "secrets", Namespace: "a", Name: "b"}, Reason: GapForbidden, What: "reading secrets a/b", Error: "forbidden: no"}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"op":"get","subject":{"version":"v1","resource":"secrets","namespace":"a","name":"b"},"reason":"forbidden","what":"reading secrets a/b","error":"forbidden: no"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Gap{Op: OpList, Reason: GapTooLarge, What: "more than 16"})
	if want := `{"op":"list","subject":{},"reason":"too-large","what":"more than 16"}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// Ops and reasons are closed sets of kebab-case codes, each listed once.
func TestGapCodes(t *testing.T) {
	var ops, reasons []string
	for _, o := range GapOps() {
		ops = append(ops, string(o))
	}
	for _, r := range GapReasons() {
		reasons = append(reasons, string(r))
	}
	for _, set := range [][]string{ops, reasons} {
		for i, c := range set {
			if !Reason(c).Valid() {
				t.Errorf("%q is not kebab-case", c)
			}
			if slices.Index(set, c) != i {
				t.Errorf("%q is listed twice", c)
			}
		}
	}
	if !slices.Contains(reasons, string(GapFailed)) || !slices.Contains(ops, string(OpReadStorage)) {
		t.Error("a code is missing from its list")
	}
}

func TestGapLines(t *testing.T) {
	got := GapLines([]Gap{{What: "a", Error: "x"}, {What: "b"}})
	if !slices.Equal(got, []string{"a: x", "b"}) {
		t.Errorf("GapLines = %q", got)
	}
	if GapLines(nil) != nil {
		t.Error("no gaps give lines")
	}
}
