-- idem: helpers every script starts with (the store prepends this file to each script it loads).
--
-- A record is one hash: s state (0 in progress, 1 completed, 2 released: a tombstone that keeps only
-- the token), t fencing token, a attempt, f fingerprint, l lease end, e retention end, p and q the
-- recovery point's phase and state, c h b the response's status, headers and body. Times are epoch
-- milliseconds on Redis' own clock (TIME), so every application instance judges leases alike.
-- Numbers are written with '%.0f': Lua would write a large number as 1.7e+15, which Redis rejects.

local function int(n)
  return string.format('%.0f', n)
end

-- Now in milliseconds and in microseconds, from the server's clock.
local function clock()
  local t = redis.call('TIME')
  local sec, usec = tonumber(t[1]), tonumber(t[2])
  return sec * 1000 + math.floor(usec / 1000), sec * 1000000 + usec
end

-- A record is live until its retention ends; one in progress also while its owner's lease runs.
local function live(state, lease, expires, now)
  if state == 0 then
    return expires > now or lease > now
  end
  return state == 1 and expires > now
end

-- When a record stops being live if nothing else happens to it.
local function record_end(state, lease, expires)
  if state == 0 and lease > expires then
    return lease
  end
  return expires
end

-- Files the record in its shard's expiry index at its end, and lets Redis delete the key itself one
-- grace period later. The grace gives purge (a sweeper) the first chance to delete and count it.
local function schedule(rec, idx, ends, grace)
  redis.call('PEXPIREAT', rec, int(ends + grace))
  redis.call('ZADD', idx, int(ends), rec)
end
