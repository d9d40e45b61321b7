package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestConnectErr(t *testing.T) {
	const raw = "postgres://bench:s3cret@127.0.0.1:5432/bench"
	cfg, err := pgxpool.ParseConfig(raw)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"wrong password", &pgconn.PgError{Code: "28P01", Message: `password authentication failed for user "bench"`},
			`postgres: cannot connect to postgres://bench:xxxxx@127.0.0.1:5432/bench: authentication failed for user "bench" (password authentication failed for user "bench"); check the user and password in --database-url`},
		{"no database", &pgconn.PgError{Code: "3D000", Message: `database "bench" does not exist`},
			`postgres: cannot connect to postgres://bench:xxxxx@127.0.0.1:5432/bench: database "bench" does not exist; create it with 'createdb -h 127.0.0.1 -p 5432 -U bench bench' or pass --database-url`},
		{"too many", &pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"},
			`postgres: cannot connect to postgres://bench:xxxxx@127.0.0.1:5432/bench: sorry, too many clients already; lower pool_max_conns in --database-url or raise the server's max_connections`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := connectErr(raw, cfg, fmt.Errorf("wrapped: %w", tt.err))
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
			if !errors.Is(err, tt.err) {
				t.Error("the cause is not unwrappable")
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Error("password printed")
			}
		})
	}
}
