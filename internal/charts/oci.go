package charts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v4/pkg/registry"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// pullOCI pulls an OCI chart with Helm's own registry client, as source-controller does: the
// tag resolved by Helm (registry.Client.Tags, semver-sorted with '_' read as '+', and
// registry.GetTagMatchingVersionOrConstraint), the manifest, config and chart layer fetched
// and checked against their digests by Helm and oras. The client is given this package's
// transport (bounded in time and size, only with the network allowed) and an authorizer that
// answers a registry's challenge anonymously: no credential is ever sent, and the credential
// stores Helm opens are never consulted (see newRegistryClient). It returns the archive and
// the version it resolved to.
func (g *Getter) pullOCI(ctx context.Context, ref Ref) ([]byte, string, error) {
	name := ref.ociReference()
	if host, repo, ok := strings.Cut(name, "/"); !ok || host == "" || repo == "" {
		return nil, "", fmt.Errorf("%q is not an OCI reference", ref.URL)
	}
	c, done, err := g.newRegistryClient(ctx, ref)
	if err != nil {
		return nil, "", err
	}
	defer done()
	version := exactVersion(ref)
	if version == "" {
		tags, err := c.Tags(name)
		if err != nil {
			return nil, "", fmt.Errorf("tags of %s: %w", name, err)
		}
		if version, err = registry.GetTagMatchingVersionOrConstraint(tags, ref.Version); err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
	}
	full := name + ":" + strings.ReplaceAll(version, "+", "_")
	if strings.HasPrefix(version, "sha256:") {
		full = name + "@" + version
	}
	res, err := c.Pull(full, registry.PullOptWithChart(true))
	if err != nil {
		return nil, "", err
	}
	if res.Chart == nil || len(res.Chart.Data) == 0 {
		return nil, "", fmt.Errorf("%s: no chart layer", full)
	}
	return res.Chart.Data, version, nil
}

// newRegistryClient is Helm's registry client over this package's transport, answering
// challenges anonymously. Helm opens its credentials file and Docker's when it makes a client;
// it is pointed at a file that does not exist, and the authorizer given to it never asks a
// store, so no credential is read from either. done removes the empty directory.
func (g *Getter) newRegistryClient(ctx context.Context, ref Ref) (*registry.Client, func(), error) {
	dir, err := os.MkdirTemp("", "kubeforensics-registry-")
	if err != nil {
		return nil, nil, err
	}
	done := func() { _ = os.RemoveAll(dir) }
	hc := g.client()
	hc.Transport = &bounded{next: hc.Transport, allow: g.AllowNetwork, limit: MaxChartBytes, ctx: ctx}
	anonymous := auth.Client{Client: hc} // no Credential: every challenge is answered anonymously
	anonymous.SetUserAgent("kubeforensics")
	opts := []registry.ClientOption{
		registry.ClientOptHTTPClient(hc),
		registry.ClientOptCredentialsFile(filepath.Join(dir, "none.json")),
		registry.ClientOptAuthorizer(anonymous),
	}
	if ref.Insecure {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	c, err := registry.NewClient(opts...)
	if err != nil {
		done()
		return nil, nil, err
	}
	return c, done, nil
}
