package helmrender_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// A render through a worker started ahead of need renders what one started on demand does,
// renders after renders (each takes a worker, the next is started), and keeps every bound:
// the deadline counts from the request, not from the worker's start.
func TestWorkersRenderAsOnDemand(t *testing.T) {
	hr := release(t, "  values:\n    controllers:\n      main:\n        containers:\n          app: {image: {repository: nginx, tag: '1.27'}}\n")
	c := load(t, charttest.AppTemplate("4.4.0"))
	want, err := helmrender.Do(context.Background(), hr, c, "sha256:x", nil, helmrender.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := helmrender.StartWorkers(ctx, helmrender.Options{})
	defer ws.Close()
	time.Sleep(300 * time.Millisecond) // the worker is up and waiting, as beside a walk
	for i := range 3 {
		got, err := helmrender.Do(ctx, hr, c, "sha256:x", nil, helmrender.Options{Workers: ws})
		if err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("render %d through a started worker differs (-on demand +worker):\n%s", i, d)
		}
	}
	if testing.Short() {
		return
	}
	slow := charttest.Chart{Name: "slow", Version: "1.0.0", Files: map[string]string{
		"templates/cm.yaml": "{{- range $i := until 5000 }}{{- range $j := until 5000 }}{{- end }}{{- end }}\n",
	}}
	shr := obj(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: slow, namespace: x}\nspec: {chart: {spec: {chart: slow, sourceRef: {kind: HelmRepository, name: r}}}}\n")
	bounded := helmrender.StartWorkers(ctx, helmrender.Options{Timeout: 50 * time.Millisecond})
	defer bounded.Close()
	time.Sleep(300 * time.Millisecond)
	_, err = helmrender.Do(ctx, shr, load(t, slow), "", nil, helmrender.Options{Timeout: 50 * time.Millisecond, Workers: bounded})
	if err == nil || !strings.Contains(err.Error(), "not rendered within 50ms") {
		t.Fatalf("deadline through a started worker: %v", err)
	}
}

// Close stops the spare worker; a closed Workers starts no other, and renders still run.
func TestWorkersClose(t *testing.T) {
	ws := helmrender.StartWorkers(context.Background(), helmrender.Options{})
	ws.Close()
	ws.Close()
	hr := release(t, "")
	if _, err := helmrender.Do(context.Background(), hr, load(t, charttest.AppTemplate("4.4.0")), "", nil, helmrender.Options{Workers: ws}); err != nil {
		t.Fatalf("a render after Close: %v", err)
	}
	var nilWorkers *helmrender.Workers
	nilWorkers.Close()
}
