package helmjudge

import (
	"context"
	"fmt"

	"helm.sh/helm/v4/pkg/action"
	"k8s.io/client-go/discovery"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/helmstorage"
)

// InstalledChart reads the deployed release of the live HelmRelease namespace/name with the
// chart Helm stored for it; nil, nil as Installed.
func (lr *Reader) InstalledChart(ctx context.Context, namespace, name string) (*helmstorage.Release, error) {
	hr, err := lr.installedHelmRelease(ctx, namespace, name)
	if hr == nil || err != nil {
		return nil, err
	}
	return lr.installed(ctx, hr, true)
}

// Capabilities reads the server's version and, with Helm's own action.GetVersionSet, every
// group/version and group/version/Kind it serves, as Helm's Configuration.getCapabilities does
// for helm-controller; like Helm, an API group whose discovery fails is left out, not fatal.
func (lr *Reader) Capabilities(context.Context) (string, []string, error) {
	v, err := lr.Clients.Discovery.ServerVersion()
	if err != nil {
		return "", nil, fmt.Errorf("reading the server's version: %s", cluster.Reason(err))
	}
	set, err := action.GetVersionSet(lr.Clients.Discovery)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return "", nil, fmt.Errorf("reading the API versions the server serves: %s", cluster.Reason(err))
	}
	return v.GitVersion, set, nil
}

// Storage is where the releases helm-controller stored and the cluster's Capabilities are read
// (a Reader, through retire.Cluster).
type Storage interface {
	Installed(ctx context.Context, namespace, name string) (*helmstorage.Release, error)
	InstalledChart(ctx context.Context, namespace, name string) (*helmstorage.Release, error)
	Capabilities(ctx context.Context) (kubeVersion string, apiVersions []string, err error)
}

// Releases reads, live, the releases helm-controller stored and the cluster's
// Capabilities; nil offline.
type Releases struct {
	// release reads the deployed release of the live HelmRelease namespace/name; nil, nil
	// when there is none to read (not on the cluster, or never installed).
	release func(namespace, name string) (*helmstorage.Release, error)
	// withChart is release with the chart Helm stored for it.
	withChart func(namespace, name string) (*helmstorage.Release, error)
	// capabilities is Storage.Capabilities.
	capabilities func() (kubeVersion string, apiVersions []string, err error)
}

// ReleasesOf reads deployed releases through live, nil offline (live nil).
func ReleasesOf(ctx context.Context, live Storage) *Releases {
	if live == nil {
		return nil
	}
	return &Releases{
		release: func(namespace, name string) (*helmstorage.Release, error) {
			return live.Installed(ctx, namespace, name)
		},
		withChart: func(namespace, name string) (*helmstorage.Release, error) {
			return live.InstalledChart(ctx, namespace, name)
		},
		capabilities: func() (string, []string, error) { return live.Capabilities(ctx) },
	}
}
