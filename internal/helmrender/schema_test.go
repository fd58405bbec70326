package helmrender_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// A values.schema.json referring to a schema by URL (app-template 3.x refers to its own on the
// web) renders offline without fetching it, saying so, while the rest of the schema still
// holds; with the network allowed Helm fetches it, as helm-controller does, and it holds too.
func TestRemoteSchemaRefs(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type": "object", "properties": {"port": {"type": "integer"}}}`))
	}))
	defer srv.Close()
	remote := srv.URL + "/common.json"
	c := charttest.Chart{Name: "refs", Version: "1.0.0", Files: map[string]string{
		"values.schema.json": `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["name"],
  "properties": {"name": {"type": "string"}, "service": {"$ref": "` + remote + `"}}}`,
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Values.name }}}\ndata: {port: {{ .Values.service.port | quote }}}\n",
	}}
	hr := func(values string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: refs, namespace: apps}\nspec:\n  chart: {spec: {chart: refs, sourceRef: {kind: HelmRepository, name: r}}}\n  values: " + values + "\n"
	}
	for _, tc := range []struct {
		name, values string
		network      bool
		wantErr      string // "" renders
		wantHits     bool
	}{
		{"offline: remote reference skipped", `{name: web, service: {port: "not-a-number"}}`, false, "", false},
		{"offline: the rest of the schema holds", `{service: {port: 80}}`, false, "missing property 'name'", false},
		{"network: remote reference fetched and holds", `{name: web, service: {port: "not-a-number"}}`, true, "got string, want integer", true},
		{"network: values that satisfy it", `{name: web, service: {port: 80}}`, true, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			r, err := helmrender.Do(context.Background(), obj(t, hr(tc.values)), load(t, c), "", nil, helmrender.Options{AllowNetwork: tc.network})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("render failed: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got %v, want an error with %q", err, tc.wantErr)
			}
			if got := hits.Load() > 0; got != tc.wantHits {
				t.Fatalf("remote schema fetched: %v, want %v", got, tc.wantHits)
			}
			if err != nil {
				return
			}
			noted := strings.Contains(strings.Join(r.Notes, "\n"), remote)
			if noted == tc.network {
				t.Fatalf("notes %q: want the skipped %s named only offline", r.Notes, remote)
			}
		})
	}
}

// A chart from a repository (a pull request's, in CI) whose values schema refers to files is
// refused, as a chart from storage is: Helm's validator would read them from this machine.
func TestRepositoryChartReferringToFilesRefused(t *testing.T) {
	hr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart: {spec: {chart: web, version: 1.0.0, sourceRef: {kind: HelmRepository, name: r}}}\n")
	for _, ref := range []string{"file:///etc/passwd", "../../etc/passwd", "definitions.json"} {
		c := storedChart(`{"properties":{"a":{"$ref":"` + ref + `"}}}`)
		_, err := helmrender.Do(context.Background(), hr, c, "", nil, helmrender.Options{InProcess: true})
		if err == nil || !strings.Contains(err.Error(), "refers to files") {
			t.Errorf("$ref %q: got %v, want a refusal", ref, err)
		}
	}
	// A relative reference under a remote $id is remote: skipped offline, not refused.
	c := storedChart(`{"$id":"https://example.com/s/values.schema.json","properties":{"a":{"$ref":"defs.json"}}}`)
	if _, err := helmrender.Do(context.Background(), hr, c, "", nil, helmrender.Options{InProcess: true}); err != nil && strings.Contains(err.Error(), "refers to files") {
		t.Errorf("a reference relative to a remote $id was refused: %v", err)
	}
}
