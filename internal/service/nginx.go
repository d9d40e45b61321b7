package service

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func init() {
	register(&spec{
		name: "nginx", schemes: []string{"http"}, example: "http://127.0.0.1:8080",
		installed: func() error { _, err := lookBinary("nginx", "nginx", "nginx", ""); return err },
		launch:    launchNginx,
		probe:     probeNginx,
		ready:     20 * time.Second,
	})
}

// NginxSite is what a private nginx serves: every request on 127.0.0.1:Port handed to one
// FastCGI script (a PHP app's front controller) at FastCGI, e.g. a PHP-FPM pool, or, with
// Answer, answered by nginx itself.
type NginxSite struct {
	Port    int    // the port on 127.0.0.1 (the impl's IOBENCH_LISTEN)
	Root    string // the document root, an absolute path (DOCUMENT_ROOT)
	Script  string // the front controller, an absolute path: SCRIPT_FILENAME of every request
	FastCGI string // where fastcgi_pass sends requests: unix:/path/to.sock or 127.0.0.1:PORT
	Workers int    // worker_processes; 0 means one per core
	// Answer, when not empty, makes a static site instead of a FastCGI one: nginx answers every
	// request 200 with this text/plain body (no newline added); Root, Script and FastCGI are
	// then unused.
	Answer string
	// TLS, when set, serves the site (and the readiness probe) over https only.
	TLS *NginxTLS
	// HTTP2 serves the site over HTTP/2: h2 through ALPN (offered before http/1.1) with TLS,
	// else h2c with prior knowledge only (nginx then answers no HTTP/1.1 on the port). Each
	// protocol gets a port of its own: a site per port.
	HTTP2 bool
	// AccessLog writes one line per request of the site (the probe's left out) to
	// NginxAccessLog in the instance's directory, which Stop removes.
	AccessLog bool
}

// NginxTLS is the certificate of an https site and its session settings: TLS 1.2 and 1.3,
// HTTP/1.1 (ALPN offers nothing else, unless the site is HTTP2), a shared session cache and session tickets, so that
// clients can resume.
type NginxTLS struct {
	CertPEM, KeyPEM []byte // written as cert.pem and key.pem into the instance's directory
}

// NginxAccessLog is the name of the site's access log in the instance's directory.
const NginxAccessLog = "access.log"

// probeHost is the virtual host that answers readiness probes with 204, so that the site's own
// URL space is left to the app.
const probeHost = "iobench-probe"

// StartNginx starts a private nginx in front of a FastCGI server, as Start does for the other
// local servers: its own configuration, pid file, logs and temporary files in StateDir/nginx-PORT
// (nothing of /etc/nginx, /var/log/nginx or /run), in the foreground as our child, as user
// www-data when we are root, listening on 127.0.0.1:site.Port only. It is not one of Names():
// what it serves is given per run. The Instance is Owned (the caller Stops it); its Workers is
// worker_processes.
func StartNginx(ctx context.Context, site NginxSite, opts Options) (*Instance, error) {
	fastCGI := site.Answer == ""
	if site.Port <= 0 || fastCGI && (!filepath.IsAbs(site.Root) || !filepath.IsAbs(site.Script) || site.FastCGI == "") {
		return nil, fmt.Errorf("nginx: site on port %d needs a port, and absolute root and script paths and a FastCGI address or an answer", site.Port)
	}
	if site.Workers <= 0 {
		site.Workers = runtime.NumCPU()
	}
	opts.Port, opts.site = site.Port, &site
	return start(ctx, "nginx", opts, false)
}

// launchNginx writes the site's nginx.conf and runs nginx in the foreground with its prefix in
// the instance directory.
func launchNginx(_ context.Context, l *launch) (string, error) {
	site := l.opts.site
	if site == nil {
		return "", errors.New("nginx serves a site given per run: start it with StartNginx")
	}
	bin, err := lookBinary("nginx", "nginx", "nginx", "")
	if err != nil {
		return "", err
	}
	if sock, ok := strings.CutPrefix(site.FastCGI, "unix:"); ok {
		if err := searchable(filepath.Dir(sock), l.user); err != nil { // else every request is a 502
			return "", err
		}
	}
	files := map[string]string{"nginx.conf": nginxConf(l.dir, l.port, site)}
	scheme := "http"
	if site.TLS != nil {
		files["cert.pem"], files["key.pem"], scheme = string(site.TLS.CertPEM), string(site.TLS.KeyPEM), "https"
	}
	if err := writeFiles(l.dir, l.user, files); err != nil {
		return "", err
	}
	l.workers = site.Workers
	l.logFile = filepath.Join(l.dir, "nginx.log")
	// -e: the error log before nginx.conf is read, which would otherwise be /var/log/nginx's.
	if err := l.runOne(procConfig{
		path: bin, args: []string{"-p", l.dir + "/", "-c", filepath.Join(l.dir, "nginx.conf"), "-e", "stderr"},
		env: baseEnv(l.dir), log: "nginx.log", signal: syscall.SIGTERM, grace: 10 * time.Second,
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s://127.0.0.1:%d", scheme, l.port), nil
}

// nginxConf is the whole configuration of a private nginx: no include of the system's files,
// no access log unless the site asks for its own, keep-alive connections that a load generator
// does not have to reopen, every request to the site's script with the usual FastCGI parameters
// or answered by nginx itself.
func nginxConf(dir string, port int, s *NginxSite) string {
	listen, ssl := "", ""
	if s.HTTP2 {
		listen = " http2"
	}
	if s.TLS != nil {
		listen = " ssl" + listen
		ssl = fmt.Sprintf(`    ssl_certificate %[1]s/cert.pem;
    ssl_certificate_key %[1]s/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    ssl_session_tickets on;
`, dir)
	}
	log := "access_log off;"
	if s.AccessLog {
		log = fmt.Sprintf("access_log %s/%s;", dir, NginxAccessLog)
	}
	return fmt.Sprintf(`# written by iobench for one run; nothing of /etc/nginx is read
daemon off;
master_process on;
worker_processes %[3]d;
pid %[1]s/nginx.pid;
error_log stderr warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    server_tokens on;
    keepalive_requests 1000000;
    client_body_temp_path %[1]s/body;
    fastcgi_temp_path %[1]s/fastcgi;
    proxy_temp_path %[1]s/proxy;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
%[7]s    server {
        listen 127.0.0.1:%[2]d%[6]s default_server backlog=4096;
        %[8]s
%[4]s    }
    server {
        listen 127.0.0.1:%[2]d%[6]s;
        server_name %[5]s;
        location / {
            return 204;
        }
    }
}
`, dir, port, s.Workers, siteLocation(s), probeHost, listen, ssl, log)
}

// siteLocation is the site's location block: its FastCGI script, or its answer.
func siteLocation(s *NginxSite) string {
	if s.Answer != "" {
		return fmt.Sprintf("        location / {\n            default_type text/plain;\n            return 200 %q;\n        }\n", s.Answer)
	}
	var params strings.Builder
	for _, p := range fastcgiParams {
		fmt.Fprintf(&params, "            fastcgi_param %s %s;\n", p[0], p[1])
	}
	return fmt.Sprintf(`        root %s;
        location / {
            fastcgi_pass %s;
            fastcgi_param SCRIPT_FILENAME %s;
            fastcgi_param SCRIPT_NAME /%s;
%s        }
`, s.Root, s.FastCGI, s.Script, filepath.Base(s.Script), params.String())
}

// fastcgiParams are those of nginx's own fastcgi_params file, which a PHP app expects.
var fastcgiParams = [][2]string{
	{"QUERY_STRING", "$query_string"}, {"REQUEST_METHOD", "$request_method"},
	{"CONTENT_TYPE", "$content_type"}, {"CONTENT_LENGTH", "$content_length"},
	{"REQUEST_URI", "$request_uri"}, {"DOCUMENT_URI", "$document_uri"},
	{"DOCUMENT_ROOT", "$document_root"}, {"SERVER_PROTOCOL", "$server_protocol"},
	{"REQUEST_SCHEME", "$scheme"}, {"GATEWAY_INTERFACE", "CGI/1.1"},
	{"SERVER_SOFTWARE", "nginx/$nginx_version"}, {"REMOTE_ADDR", "$remote_addr"},
	{"REMOTE_PORT", "$remote_port"}, {"SERVER_ADDR", "$server_addr"},
	{"SERVER_PORT", "$server_port"}, {"SERVER_NAME", "$server_name"},
	{"REDIRECT_STATUS", "200"},
}

// probeNginx asks the probe host for a 204 and returns the version from the Server header. A
// port that answers HTTP/1.1 with something else than HTTP/1.1 is asked again over h2c: an
// HTTP2 site without TLS speaks nothing else.
func probeNginx(ctx context.Context, u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	c, err := dialer(ctx)("tcp", pu.Host)
	if err != nil {
		return "", err
	}
	v, err := probeHTTP1(c, pu)
	if pu.Scheme == "http" && err != nil && strings.Contains(err.Error(), "malformed HTTP") { // net/http's word for bytes that are not HTTP/1.x
		return probeH2C(ctx, pu)
	}
	return v, err
}

// probeH2C asks the probe host for a 204 over HTTP/2 with prior knowledge.
func probeH2C(ctx context.Context, pu *url.URL) (string, error) {
	tr := &http.Transport{Protocols: new(http.Protocols), DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialer(ctx)(network, addr)
	}}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+pu.Host+"/", nil)
	if err != nil {
		return "", err
	}
	req.Host = probeHost
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return "", err
	}
	return nginxVersion(resp)
}

// probeHTTP1 asks over HTTP/1.1 on c, over TLS for an https URL.
func probeHTTP1(c net.Conn, pu *url.URL) (string, error) {
	if pu.Scheme == "https" { // our own server's certificate: reachability, not trust, is probed
		c = tls.Client(c, &tls.Config{InsecureSkipVerify: true, ServerName: probeHost})
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", probeHost); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	return nginxVersion(resp)
}

// nginxVersion checks the probe's 204 and returns the version its Server header names.
func nginxVersion(resp *http.Response) (string, error) {
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return "", fmt.Errorf("probe answered %s, want 204", resp.Status)
	}
	v, _ := strings.CutPrefix(resp.Header.Get("Server"), "nginx/")
	return v, nil
}
