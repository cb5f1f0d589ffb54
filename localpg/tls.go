package localpg

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TLSFiles are the PEM files written by GenerateTestCA, as absolute paths.
type TLSFiles struct {
	// CACert is the self-signed certificate authority that signed the
	// server and client certificates (sslrootcert for clients, ssl_ca_file
	// for the server).
	CACert string
	// ServerCert and ServerKey are the server's certificate, valid for
	// 127.0.0.1, ::1 and localhost, and its private key.
	ServerCert, ServerKey string
	// ClientCert and ClientKey are a client certificate with CN=postgres,
	// for certificate authentication as the postgres role, and its key.
	ClientCert, ClientKey string
}

// GenerateTestCA creates, in dir, a throwaway certificate authority and a
// server and a client certificate it signs (ECDSA P-256, valid for a day),
// for tests: ca.pem, server.pem, server.key, client.pem (CN=postgres) and
// client.key. Keys are written with mode 0600.
func GenerateTestCA(dir string) (TLSFiles, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return TLSFiles{}, fmt.Errorf("localpg: %w", err)
	}
	files := TLSFiles{
		CACert:     filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey:  filepath.Join(dir, "server.key"),
		ClientCert: filepath.Join(dir, "client.pem"),
		ClientKey:  filepath.Join(dir, "client.key"),
	}
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return TLSFiles{}, fmt.Errorf("localpg: %w", err)
	}
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "stampede test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	caDER, ca, err := sign(caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return TLSFiles{}, err
	}
	if err := writePEM(files.CACert, "CERTIFICATE", caDER, 0o644); err != nil {
		return TLSFiles{}, err
	}
	leaves := []struct {
		cert, key string
		tmpl      *x509.Certificate
	}{
		{files.ServerCert, files.ServerKey, &x509.Certificate{
			Subject:     pkix.Name{CommonName: "localhost"},
			DNSNames:    []string{"localhost"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}},
		{files.ClientCert, files.ClientKey, &x509.Certificate{
			Subject:     pkix.Name{CommonName: "postgres"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}},
	}
	for _, l := range leaves {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return TLSFiles{}, fmt.Errorf("localpg: %w", err)
		}
		l.tmpl.NotBefore, l.tmpl.NotAfter = caTmpl.NotBefore, caTmpl.NotAfter
		l.tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, _, err := sign(l.tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return TLSFiles{}, err
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return TLSFiles{}, fmt.Errorf("localpg: %w", err)
		}
		if err := writePEM(l.cert, "CERTIFICATE", der, 0o644); err != nil {
			return TLSFiles{}, err
		}
		if err := writePEM(l.key, "PRIVATE KEY", keyDER, 0o600); err != nil {
			return TLSFiles{}, err
		}
	}
	return files, nil
}

// sign creates tmpl signed by parent's key, with a random serial number,
// and returns it in DER and parsed.
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, parentKey *ecdsa.PrivateKey) ([]byte, *x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("localpg: %w", err)
	}
	tmpl.SerialNumber = serial
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("localpg: creating certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("localpg: %w", err)
	}
	return der, cert, nil
}

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	return os.Chmod(path, mode) // in case the file existed
}

// Names of the TLS files EnableTLS copies into the data directory.
const (
	serverCertName = "stampede-server.pem"
	serverKeyName  = "stampede-server.key"
	caCertName     = "stampede-ca.pem"
)

// EnableTLS turns on SSL in the server with the given certificates and
// restarts it (a fast shutdown; clients lose their connections). The server
// certificate, key and CA certificate are copied into the data directory,
// owned by the server's OS user, the key with mode 0600 as PostgreSQL
// requires. Connections without SSL are still accepted unless pg_hba.conf
// says otherwise (see PrependHBA). Clients that present a certificate
// signed by files.CACert can use the "cert" authentication method.
func (s *Server) EnableTLS(ctx context.Context, files TLSFiles) error {
	for _, f := range []struct {
		src, name string
		mode      os.FileMode
	}{
		{files.ServerCert, serverCertName, 0o644},
		{files.ServerKey, serverKeyName, 0o600},
		{files.CACert, caCertName, 0o644},
	} {
		if err := s.copyIntoDataDir(f.src, f.name, f.mode); err != nil {
			return err
		}
	}
	conf := fmt.Sprintf("\n# Added by EnableTLS.\nssl = on\nssl_cert_file = %s\nssl_key_file = %s\nssl_ca_file = %s\n",
		quoteSetting(serverCertName), quoteSetting(serverKeyName), quoteSetting(caCertName))
	if err := s.appendToDataFile(confName, conf); err != nil {
		return err
	}
	return s.Restart(ctx, false)
}

// PrependHBA puts the given pg_hba.conf lines (such as
// "hostssl all all 127.0.0.1/32 cert") before the existing ones, so that
// they take precedence over the trust rules initdb wrote. They take effect
// at the next Restart (EnableTLS restarts) or configuration reload
// (SELECT pg_reload_conf()). The rules must still let the postgres role in
// from 127.0.0.1 without SSL nor password, since that is how Start and
// Restart check that the server is ready: restrict other roles, or the
// postgres role over SSL only ("hostssl all postgres 127.0.0.1/32 cert").
func (s *Server) PrependHBA(lines ...string) error {
	for _, l := range lines {
		if strings.ContainsAny(l, "\n\r\x00") {
			return fmt.Errorf("localpg: pg_hba.conf line %q contains a line break or NUL", l)
		}
	}
	path := filepath.Join(s.dataDir, "pg_hba.conf")
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	data := "# Added by stampede's localpg.\n" + strings.Join(lines, "\n") + "\n\n" + string(old)
	return s.writeDataFile(path, []byte(data), 0o600)
}

// copyIntoDataDir copies the file src into the data directory as name.
func (s *Server) copyIntoDataDir(src, name string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	return s.writeDataFile(filepath.Join(s.dataDir, name), data, mode)
}

// appendToDataFile appends text to the file name of the data directory.
func (s *Server) appendToDataFile(name, text string) error {
	path := filepath.Join(s.dataDir, name)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("localpg: %w", err)
	}
	return s.writeDataFile(path, append(old, text...), 0o600)
}

// writeDataFile writes a file the server reads, owned by the server user.
func (s *Server) writeDataFile(path string, data []byte, mode os.FileMode) error {
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	if s.as != nil {
		if err := os.Chown(path, int(s.as.uid), int(s.as.gid)); err != nil {
			return fmt.Errorf("localpg: %w", err)
		}
	}
	return nil
}
