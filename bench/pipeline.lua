-- pipeline.lua: wrk pipelining DEPTH requests (default 16) per write, as TechEmpower's plaintext
-- test does: each call of request() returns DEPTH GETs of the URL's path in one string, and wrk
-- writes the next batch when all of them are answered, counting every response.
--   wrk -t1 -c10 -d10s -s bench/pipeline.lua http://127.0.0.1:8080/ -- 16
local depth = 16
local batch

init = function(args)
  depth = tonumber(args[1]) or depth
  local r = {}
  for i = 1, depth do
    r[i] = wrk.format(nil)
  end
  batch = table.concat(r)
end

request = function()
  return batch
end
