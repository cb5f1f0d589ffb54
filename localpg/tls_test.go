package localpg

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestGenerateTestCA(t *testing.T) {
	files, err := GenerateTestCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(files.CACert)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	server, err := tls.LoadX509KeyPair(files.ServerCert, files.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "localhost", "::1"} {
		if _, err := server.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
	if _, err := server.Leaf.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: roots}); err == nil {
		t.Error("server certificate valid for example.com")
	}
	client, err := tls.LoadX509KeyPair(files.ClientCert, files.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	if cn := client.Leaf.Subject.CommonName; cn != "postgres" {
		t.Errorf("client certificate CN %q, want postgres", cn)
	}
	if _, err := client.Leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate: %v", err)
	}
	for _, key := range []string{files.ServerKey, files.ClientKey} {
		fi, err := os.Stat(key)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(key), fi.Mode().Perm())
		}
	}
}

func TestLocalPGEnableTLS(t *testing.T) {
	requireBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: parentDir(t), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	files, err := GenerateTestCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE ROLE tlsonly LOGIN SUPERUSER")
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// tlsonly must use SSL; postgres over SSL must show its certificate.
	if err := s.PrependHBA("hostnossl all tlsonly 127.0.0.1/32 reject", "hostssl all postgres 127.0.0.1/32 cert"); err != nil {
		t.Fatal(err)
	}
	if err := s.EnableTLS(ctx, files); err != nil {
		t.Fatal(err)
	}

	tlsURL := func(user, params string) string {
		u := strings.Replace(s.URL("postgres"), "postgres@", user+"@", 1)
		return strings.Replace(u, "sslmode=disable", params, 1)
	}
	if _, err := pgx.Connect(ctx, tlsURL("tlsonly", "sslmode=disable")); err == nil || !strings.Contains(err.Error(), "pg_hba.conf") {
		t.Errorf("tlsonly without SSL: %v, want a pg_hba.conf rejection", err)
	}
	ca := "&sslrootcert=" + url.QueryEscape(files.CACert)
	client := "&sslcert=" + url.QueryEscape(files.ClientCert) + "&sslkey=" + url.QueryEscape(files.ClientKey)
	if _, err := pgx.Connect(ctx, tlsURL("postgres", "sslmode=verify-full"+ca)); err == nil {
		t.Error("postgres over SSL without a client certificate got in")
	}
	for _, u := range []string{
		tlsURL("tlsonly", "sslmode=require"),
		tlsURL("tlsonly", "sslmode=verify-full"+ca),
		tlsURL("postgres", "sslmode=verify-full"+ca+client),
	} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		var ssl bool
		if err := conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
			t.Errorf("%s: pg_stat_ssl.ssl = %v, %v; want true", u, ssl, err)
		}
		conn.Close(ctx)
	}
	// Restart keeps TLS (and still finds the server ready).
	if err := s.Restart(ctx, true); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, tlsURL("tlsonly", "sslmode=verify-full"+ca))
	if err != nil {
		t.Fatalf("after Restart: %v", err)
	}
	conn.Close(ctx)
}
