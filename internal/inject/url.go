package inject

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// defaultPorts are the ports of URLs that name none, by scheme.
var defaultPorts = map[string]string{"postgres": "5432", "postgresql": "5432", "amqp": "5672", "amqps": "5671",
	"redis": "6379", "http": "80", "https": "443"}

// HostPort returns the host:port a service's URL (or bare host:port, memcached's) points at.
func HostPort(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		if _, _, err := net.SplitHostPort(raw); err != nil {
			return "", fmt.Errorf("cannot find the host and port in %q", raw)
		}
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("cannot find the host and port in the %s URL", schemeOf(raw))
	}
	port := u.Port()
	if port == "" {
		if port = defaultPorts[u.Scheme]; port == "" {
			return "", fmt.Errorf("the %s URL names no port", u.Scheme)
		}
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// Redirect returns raw (a URL, or a bare host:port) pointed at addr instead, everything else kept.
func Redirect(raw, addr string) (string, error) {
	if _, err := HostPort(raw); err != nil {
		return "", err
	}
	if !strings.Contains(raw, "://") {
		return addr, nil
	}
	u, _ := url.Parse(raw)
	u.Host = addr
	return u.String(), nil
}

func schemeOf(raw string) string {
	s, _, _ := strings.Cut(raw, "://")
	return s
}
