package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wireConn is a connection taken from pgx (hijacked after its start-up) on which a Tx speaks
// PostgreSQL's extended query protocol itself: each statement is parsed once per connection
// under a name of its own, and an exchange is Bind and Execute of each statement, then Sync, in
// one write, its replies read from a buffer of the connection's. pgx's batch on the same round
// trip cost the bus consumer about a fifth of its CPU (prepared-statement lookups, a timer per
// write against a write/read deadlock, result readers) and ~20 allocations; this allocates
// nothing once a connection's statements are parsed. It is not safe for concurrent use.
type wireConn struct {
	conn   net.Conn
	out    []byte            // the exchange being built
	in     []byte            // read buffer: unread replies are in[r:w]
	r, w   int               //
	stmts  map[string]string // query -> name of its prepared statement
	parsed []string          // queries parsed in the exchange being built, named once it succeeds
	seq    int               // statements named so far
	status byte              // transaction status of the last ReadyForQuery: 'I', 'T' or 'E'
	broken bool              // I/O failed or was cut: the connection must be closed

	res  [3]result // the results of the last exchange, in order
	nres int
}

// result is what one statement of an exchange did: its command tag, as far as a Tx asks.
type result struct {
	rows int64  // the tag's last number (rows affected), 0 when it has none
	verb string // "COMMIT", "ROLLBACK" or "" for any other tag
}

// newWireConn takes over c, a connection idle after its start-up.
func newWireConn(c net.Conn, status byte) *wireConn {
	return &wireConn{conn: c, in: make([]byte, 4096), stmts: make(map[string]string), status: status}
}

// queue adds query with args to the exchange being built: Parse when the connection has not
// prepared it yet, Bind (every parameter as text) and Execute.
func (c *wireConn) queue(query string, args []any) error {
	name, ok := c.stmts[query]
	if !ok {
		c.seq++
		name = "iobench_" + strconv.Itoa(c.seq)
		c.stmts[query] = name
		c.parsed = append(c.parsed, query)
		c.out = appendMsg(c.out, 'P', func(b []byte) []byte {
			b = append(append(b, name...), 0)
			b = append(append(b, query...), 0)
			return binary.BigEndian.AppendUint16(b, 0)
		})
	}
	var err error
	c.out = appendMsg(c.out, 'B', func(b []byte) []byte {
		b = append(b, 0) // the unnamed portal
		b = append(append(b, name...), 0)
		b = binary.BigEndian.AppendUint16(b, 0) // every parameter as text
		b = binary.BigEndian.AppendUint16(b, uint16(len(args)))
		for _, a := range args {
			if b, err = appendParam(b, a); err != nil {
				return b
			}
		}
		return binary.BigEndian.AppendUint16(b, 0) // results as text
	})
	if err != nil {
		c.forget()
		c.out = c.out[:0]
		return err
	}
	c.out = append(c.out, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // the unnamed portal, every row
	return nil
}

// appendMsg appends a message of type typ whose body body appends, with its length.
func appendMsg(b []byte, typ byte, body func([]byte) []byte) []byte {
	start := len(b)
	b = append(b, typ, 0, 0, 0, 0)
	b = body(b)
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-1))
	return b
}

// appendParam appends a's text form with its length: strings and byte slices as they are,
// integers and booleans as PostgreSQL reads them, nil as NULL.
func appendParam(b []byte, a any) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	switch v := a.(type) {
	case nil:
		binary.BigEndian.PutUint32(b[start:], 0xFFFFFFFF)
		return b, nil
	case string:
		b = append(b, v...)
	case []byte:
		b = append(b, v...)
	case int:
		b = strconv.AppendInt(b, int64(v), 10)
	case int32:
		b = strconv.AppendInt(b, int64(v), 10)
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case bool:
		b = strconv.AppendBool(b, v)
	default:
		return b[:start], fmt.Errorf("a transaction's argument of type %T is not supported (strings, integers, booleans, []byte, nil)", a)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}

// forget drops the statements parsed in the exchange being built: they may not exist.
func (c *wireConn) forget() {
	for _, q := range c.parsed {
		delete(c.stmts, q)
	}
	c.parsed = c.parsed[:0]
}

// errBroken is what an exchange on a broken connection returns.
var errBroken = errors.New("the connection was lost in an earlier statement")

// exchange sends what queue built, then Sync, in one write, and reads the replies up to
// ReadyForQuery: the results of the statements that completed go to c.res, in order, and the
// first error, the server's as a *pgconn.PgError, is returned. After an I/O error the
// connection is broken.
func (c *wireConn) exchange(ctx context.Context) error {
	c.out = append(c.out, 'S', 0, 0, 0, 4)
	c.nres = 0
	if c.broken { // a connection cut mid-exchange is out of step: never written to again
		c.out = c.out[:0]
		c.forget()
		return errBroken
	}
	if ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			c.out = c.out[:0]
			c.forget()
			return err
		}
		stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
		defer func() {
			if !stop() { // the deadline is set, or about to be: the connection is spent
				c.broken = true
			}
		}()
	}
	_, err := c.conn.Write(c.out)
	c.out = c.out[:0]
	if err == nil {
		// The server needs tens of microseconds to answer: letting the goroutines ready to
		// run go first makes it likelier that the reply is there at the first read, which
		// then does not fail with EAGAIN and park the goroutine until the poller sees it.
		runtime.Gosched()
		err = c.replies()
	}
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// replies reads the replies of one exchange up to ReadyForQuery.
func (c *wireConn) replies() error {
	var first error
	for {
		typ, body, err := c.next()
		if err != nil {
			c.broken = true
			c.forget()
			if first != nil { // the server said why before it closed: FATAL, for instance
				return first
			}
			return err
		}
		switch typ {
		case 'C': // CommandComplete
			if c.nres < len(c.res) {
				c.res[c.nres] = tagResult(body)
				c.nres++
			}
		case 'I': // EmptyQueryResponse
			if c.nres < len(c.res) {
				c.res[c.nres] = result{}
				c.nres++
			}
		case 'E': // ErrorResponse: the server skips the rest until Sync
			if first == nil {
				first = pgError(body)
			}
		case 'Z': // ReadyForQuery
			if len(body) > 0 {
				c.status = body[0]
			}
			if first != nil {
				c.forget()
			}
			c.parsed = c.parsed[:0]
			return first
		}
		// ParseComplete, BindComplete, DataRow, NoticeResponse, ParameterStatus and
		// NotificationResponse need nothing.
	}
}

// next returns the next message from the server; body is valid until the next call.
func (c *wireConn) next() (byte, []byte, error) {
	if err := c.fill(5); err != nil {
		return 0, nil, err
	}
	typ := c.in[c.r]
	n := int(binary.BigEndian.Uint32(c.in[c.r+1:]))
	if n < 4 {
		return 0, nil, fmt.Errorf("postgres: message %q of length %d from the server", typ, n)
	}
	if err := c.fill(1 + n); err != nil {
		return 0, nil, err
	}
	body := c.in[c.r+5 : c.r+1+n]
	c.r += 1 + n
	return typ, body, nil
}

// fill reads until at least n unread bytes are buffered.
func (c *wireConn) fill(n int) error {
	if c.w-c.r >= n {
		return nil
	}
	if c.r > 0 { // move what is left to the front
		c.w = copy(c.in, c.in[c.r:c.w])
		c.r = 0
	}
	if n > len(c.in) {
		c.in = append(c.in[:c.w], make([]byte, n-c.w)...)
	}
	for c.w < n {
		k, err := c.conn.Read(c.in[c.w:])
		c.w += k
		if err != nil && c.w < n {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// tagResult reads a CommandComplete's tag ("INSERT 0 1", "COMMIT", ...).
func tagResult(body []byte) result {
	tag := body
	if i := bytes.IndexByte(tag, 0); i >= 0 {
		tag = tag[:i]
	}
	switch string(tag) {
	case "COMMIT":
		return result{verb: "COMMIT"}
	case "ROLLBACK":
		return result{verb: "ROLLBACK"}
	}
	var rows int64
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	for _, d := range tag[i:] {
		rows = rows*10 + int64(d-'0')
	}
	return result{rows: rows}
}

// pgError reads an ErrorResponse into the error pgx would return.
func pgError(body []byte) *pgconn.PgError {
	var er pgproto3.ErrorResponse
	if err := er.Decode(body); err != nil {
		return &pgconn.PgError{Severity: "ERROR", Message: "malformed ErrorResponse: " + err.Error()}
	}
	return pgconn.ErrorResponseToPgError(&er)
}

// close ends the session (Terminate) and closes the socket.
func (c *wireConn) close() error {
	_, _ = c.conn.Write([]byte{'X', 0, 0, 0, 4})
	return c.conn.Close()
}
