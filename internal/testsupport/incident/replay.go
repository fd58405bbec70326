package incident

import (
	"context"
	"errors"

	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// Replay is a local control plane with the whole incident seeded on it.
type Replay struct {
	Env      *testenv.Env
	Clients  *Clients
	Incident *Incident
}

// StartReplay starts a control plane with kube-controller-manager (opts.ControllerManager is
// forced on: the claim is only held while the pvc-protection controller runs) and seeds every
// part of the incident: the Flux CRDs and the failing chain, the three Backup CRDs with their
// objects, and the claim wedged by its pod. On failure nothing is left running.
func StartReplay(ctx context.Context, opts testenv.Options) (*Replay, error) {
	opts.ControllerManager = true
	env, err := testenv.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	r := &Replay{Env: env}
	if err := r.seed(ctx); err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	return r, nil
}

func (r *Replay) seed(ctx context.Context) error {
	var err error
	if r.Clients, err = NewClients(r.Env.RESTConfig); err != nil {
		return err
	}
	if err := r.Env.InstallFluxCRDs(ctx); err != nil {
		return err
	}
	if err := r.Env.ApplyCRDs(ctx, BackupCRDs()...); err != nil {
		return err
	}
	if err := SeedBackups(ctx, r.Clients); err != nil {
		return err
	}
	if r.Incident, err = SeedStuckClaim(ctx, r.Clients); err != nil {
		return err
	}
	return SeedFluxChain(ctx, r.Clients)
}

// Stop stops the control plane.
func (r *Replay) Stop() error { return r.Env.Stop() }
