package service

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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
// FastCGI script (a PHP app's front controller) at FastCGI, e.g. a PHP-FPM pool.
type NginxSite struct {
	Port    int    // the port on 127.0.0.1 (the impl's IOBENCH_LISTEN)
	Root    string // the document root, an absolute path (DOCUMENT_ROOT)
	Script  string // the front controller, an absolute path: SCRIPT_FILENAME of every request
	FastCGI string // where fastcgi_pass sends requests: unix:/path/to.sock or 127.0.0.1:PORT
	Workers int    // worker_processes; 0 means one per core
}

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
	if site.Port <= 0 || !filepath.IsAbs(site.Root) || !filepath.IsAbs(site.Script) || site.FastCGI == "" {
		return nil, fmt.Errorf("nginx: site %+v needs a port, absolute root and script paths and a FastCGI address", site)
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
	if err := writeFiles(l.dir, l.user, map[string]string{"nginx.conf": nginxConf(l.dir, l.port, site)}); err != nil {
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
	return fmt.Sprintf("http://127.0.0.1:%d", l.port), nil
}

// nginxConf is the whole configuration of a private nginx: no include of the system's files,
// no access log, keep-alive connections that a load generator does not have to reopen, every
// request to the site's script with the usual FastCGI parameters.
func nginxConf(dir string, port int, s *NginxSite) string {
	var params strings.Builder
	for _, p := range fastcgiParams {
		fmt.Fprintf(&params, "            fastcgi_param %s %s;\n", p[0], p[1])
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
    server {
        listen 127.0.0.1:%[2]d default_server backlog=4096;
        root %[4]s;
        location / {
            fastcgi_pass %[5]s;
            fastcgi_param SCRIPT_FILENAME %[6]s;
            fastcgi_param SCRIPT_NAME /%[7]s;
%[8]s        }
    }
    server {
        listen 127.0.0.1:%[2]d;
        server_name %[9]s;
        location / {
            return 204;
        }
    }
}
`, dir, port, s.Workers, s.Root, s.FastCGI, s.Script, filepath.Base(s.Script), params.String(), probeHost)
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

// probeNginx asks the probe host for a 204 and returns the version from the Server header.
func probeNginx(ctx context.Context, u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	c, err := dialer(ctx)("tcp", pu.Host)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", probeHost); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return "", fmt.Errorf("probe answered %s, want 204", resp.Status)
	}
	v, _ := strings.CutPrefix(resp.Header.Get("Server"), "nginx/")
	return v, nil
}
