package testenv

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// fluxCRDFiles holds the Flux CRDs copied by hack/fluxcrds.sh.
//
//go:embed crds/*.yaml
var fluxCRDFiles embed.FS

// crdTimeout bounds how long ApplyCRDs waits for one CRD to become Established.
const crdTimeout = 30 * time.Second

// FluxCRDs returns the embedded Flux CustomResourceDefinitions (source-controller,
// kustomize-controller and helm-controller; see hack/fluxcrds.sh for their versions).
func FluxCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := fluxCRDFiles.ReadDir("crds")
	if err != nil {
		return nil, fmt.Errorf("list embedded Flux CRDs: %w", err)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, entry := range entries {
		name := path.Join("crds", entry.Name())
		data, err := fluxCRDFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read embedded %s: %w", name, err)
		}
		parsed, err := parseCRDs(data)
		if err != nil {
			return nil, fmt.Errorf("parse embedded %s: %w", name, err)
		}
		crds = append(crds, parsed...)
	}
	return crds, nil
}

// parseCRDs decodes every non-empty YAML document in data as a CustomResourceDefinition.
func parseCRDs(data []byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var crds []*apiextensionsv1.CustomResourceDefinition
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return crds, nil
		}
		if err != nil {
			return nil, fmt.Errorf("split YAML documents: %w", err)
		}
		if onlyComments(doc) {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(doc, crd); err != nil {
			return nil, fmt.Errorf("decode CustomResourceDefinition: %w", err)
		}
		crds = append(crds, crd)
	}
}

// onlyComments reports whether a YAML document has nothing but blank lines, comments and
// document separators.
func onlyComments(doc []byte) bool {
	for line := range strings.SplitSeq(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

// InstallFluxCRDs creates the embedded Flux CRDs (see FluxCRDs) and waits until each is
// Established.
func (e *Env) InstallFluxCRDs(ctx context.Context) error {
	crds, err := FluxCRDs()
	if err != nil {
		return err
	}
	if err := e.ApplyCRDs(ctx, crds...); err != nil {
		return fmt.Errorf("install Flux CRDs: %w", err)
	}
	return nil
}

// ApplyCRDs creates each CRD (one that already exists is left as it is) and waits until
// every one is Established, so custom resources of its kinds can be created right away.
func (e *Env) ApplyCRDs(ctx context.Context, crds ...*apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(e.RESTConfig)
	if err != nil {
		return fmt.Errorf("create apiextensions client: %w", err)
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, client, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

// waitEstablished polls the named CRD until its Established condition is True, failing
// early if its names are not accepted.
func waitEstablished(ctx context.Context, client apiextensionsclient.Interface, name string) error {
	ctx, cancel := context.WithTimeout(ctx, crdTimeout)
	defer cancel()
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for {
		crd, err := api.Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range crd.Status.Conditions {
				switch {
				case c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue:
					return nil
				case c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse:
					return fmt.Errorf("CRD %s: names not accepted: %s", name, c.Message)
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for CRD %s to be Established: %w (last get error: %v)", name, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
