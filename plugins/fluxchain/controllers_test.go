package fluxchain_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/fluxcontrollers"
)

// fluxNS is where the test control plane's Flux controllers run, as flux install puts them.
const fluxNS = "flux-system"

// controllersOnce installs the healthy controllers once per control plane.
var controllersOnce sync.Once

// ctrlState is what a controller's Deployment and pod say: available and ready, or down with
// restarts, a waiting reason and the last termination.
type ctrlState struct {
	down       bool
	restarts   int32
	waiting    string
	lastReason string
	lastExit   int32
	since      time.Time
}

// installControllers creates Flux's controllers in flux-system, healthy, once: the control
// plane is a cluster with Flux installed and running (internal/testsupport/fluxcontrollers).
func installControllers(t testing.TB, f *fixture) {
	t.Helper()
	controllersOnce.Do(func() {
		if err := fluxcontrollers.InstallHealthy(context.Background(), f.kube, fluxNS); err != nil {
			t.Fatal(err)
		}
	})
}

// controller creates or updates the controller name's Deployment and pod with status st.
func (f *fixture) controller(name string, st ctrlState) {
	f.t.Helper()
	s := fluxcontrollers.State{Down: st.down, Restarts: st.restarts, Waiting: st.waiting, LastReason: st.lastReason, LastExit: st.lastExit, Since: st.since}
	if err := fluxcontrollers.Set(context.Background(), f.kube, fluxNS, name, s); err != nil {
		f.t.Fatal(err)
	}
}

// breakController sets name's state to st for the test, and restores it healthy after.
func (f *fixture) breakController(name string, st ctrlState) {
	f.t.Helper()
	f.controller(name, st)
	f.t.Cleanup(func() { f.controller(name, ctrlState{}) })
}
