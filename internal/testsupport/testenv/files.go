package testenv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"k8s.io/client-go/tools/clientcmd"
)

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a moment ago. All
// listeners are held until every port is chosen, so the ports differ from each other.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeServiceAccountKeys writes an RSA private key (PKCS#1) and its public key (PKIX) as
// PEM files in dir and returns their paths.
func writeServiceAccountKeys(dir string) (privPath, pubPath string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", fmt.Errorf("generate service-account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", fmt.Errorf("marshal service-account public key: %w", err)
	}
	privPath = filepath.Join(dir, "sa.key")
	pubPath = filepath.Join(dir, "sa.pub")
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(privPath, priv, 0o600); err != nil {
		return "", "", fmt.Errorf("write service-account private key: %w", err)
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	if err := os.WriteFile(pubPath, pub, 0o644); err != nil {
		return "", "", fmt.Errorf("write service-account public key: %w", err)
	}
	return privPath, pubPath, nil
}

// writeTokenFile writes a static token file with one admin user in group system:masters and
// returns its path and the token.
func writeTokenFile(dir string) (path, token string, err error) {
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("generate admin token: %w", err)
	}
	token = hex.EncodeToString(raw)
	path = filepath.Join(dir, "tokens.csv")
	line := token + `,admin,admin-uid,"system:masters"` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		return "", "", fmt.Errorf("write token file: %w", err)
	}
	return path, token, nil
}

// readServingCA reads the self-signed serving bundle that kube-apiserver wrote in certDir
// (the serving certificate followed by the CA that signed it) and returns the CA
// certificates alone as PEM. Until the file is complete and parses it returns an error.
// Only the CA goes into the kubeconfig: kube-controller-manager publishes the kubeconfig's
// CA data as a ClusterTrustBundle, whose validation rejects a non-CA certificate.
func readServingCA(certDir string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
	if err != nil {
		return nil, fmt.Errorf("read apiserver serving certificate: %w", err)
	}
	var cas []byte
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse apiserver serving certificate: %w", err)
		}
		if cert.IsCA {
			cas = append(cas, pem.EncodeToMemory(block)...)
		}
	}
	if len(cas) == 0 {
		return nil, errors.New("apiserver serving certificate: no CA certificate yet")
	}
	return cas, nil
}

// writeKubeconfig writes a kubeconfig with one cluster, one token user and one context named
// contextName, set as current-context.
func writeKubeconfig(path, contextName, server string, caData []byte, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	cfg.AuthInfos[contextName+"-admin"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName + "-admin"}
	cfg.CurrentContext = contextName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}
