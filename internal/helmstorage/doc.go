// Package helmstorage reads the release Helm stored for a Flux HelmRelease: where helm-controller
// keeps it (the storage namespace, the release name as helm-controller computes it), the latest
// deployed revision of it (Helm's `sh.helm.release.v1.<name>.v<version>` Secrets, or
// ConfigMaps of Helm's configmap driver), decoded as Helm's storage driver encodes it (base64,
// gzip, JSON), bounded in size. It returns the objects of the release's manifest, the objects
// its hooks create, and its chart's name and version, never its values: only the fields named
// in record are decoded, so the release's config and the chart's values are never held, and no
// error, log or output carries the stored data. DeployedChart alone also decodes the stored
// chart (its templates and default values, to render it again), still never the release's
// config.
package helmstorage
