package helmrender_test

import (
	"context"
	"strings"
	"testing"

	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/kubeforensics/suite/internal/helmrender"
)

// storedChart is a chart as helmstorage.DeployedChart returns one: its default values carry
// a value no error may show, and its template fails quoting it.
func storedChart(schema string) *chart.Chart {
	return &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "web", Version: "1.0.0"}, Schema: []byte(schema),
		Values:    map[string]any{"token": "hunter2"},
		Templates: []*chartcommon.File{{Name: "templates/cm.yaml", Data: []byte("{{ fail (printf \"bad token %s\" .Values.token) }}\n")}}}
}

// A stored chart whose schema refers to a file is refused before anything renders; one that
// fails to render says so without Helm's message, which would quote its values.
func TestDoInstalled(t *testing.T) {
	hr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  chart: {spec: {chart: web, version: 1.0.0, sourceRef: {kind: HelmRepository, name: r}}}\n")
	_, err := helmrender.DoInstalled(context.Background(), hr, storedChart(`{"$ref":"../../etc/passwd"}`), nil, helmrender.Options{InProcess: true})
	if err == nil || !strings.Contains(err.Error(), "refers to files") {
		t.Fatalf("file reference: got %v", err)
	}
	// The stored chart is the cluster's: refused even when the HelmRelease turns schema
	// validation off, where Do renders a repository's chart without looking at its schema.
	off := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: apps}\nspec:\n  install: {disableSchemaValidation: true}\n  chart: {spec: {chart: web, version: 1.0.0, sourceRef: {kind: HelmRepository, name: r}}}\n")
	_, err = helmrender.DoInstalled(context.Background(), off, storedChart(`{"$ref":"../../etc/passwd"}`), nil, helmrender.Options{InProcess: true})
	if err == nil || !strings.Contains(err.Error(), "the installed chart web 1.0.0: values.schema.json refers to files") {
		t.Fatalf("file reference, schema validation off: got %v", err)
	}
	_, err = helmrender.Do(context.Background(), off, storedChart(`{"$ref":"../../etc/passwd"}`), "", nil, helmrender.Options{InProcess: true})
	if err == nil || strings.Contains(err.Error(), "refers to files") || !strings.Contains(err.Error(), "bad token") {
		t.Fatalf("Do, schema validation off: got %v, want the template's own failure", err)
	}
	_, err = helmrender.DoInstalled(context.Background(), hr, storedChart(""), nil, helmrender.Options{InProcess: true})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "with the installed chart web 1.0.0 failed; Helm's message is not shown") {
		t.Fatalf("failing template: got %v", err)
	}
}
