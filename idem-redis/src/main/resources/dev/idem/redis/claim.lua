-- claim: KEYS[1] the record, KEYS[2] its shard's expiry index, KEYS[3] its shard's lease index.
-- ARGV[1] fingerprint, ARGV[2] lease ms, ARGV[3] retention ms, ARGV[4] grace ms; with keepKeys ARGV[5]
-- scope and ARGV[6] idempotency key, kept in the record for operators, who list stuck records by them.
-- Answers {1, token, attempt, phase, state} acquired (phase and state nil without a recovery point),
-- {2, status, headers, body, ms of life left} replay, {3, ms of lease left} in progress, {4} mismatch.
local rec, idx, leases = KEYS[1], KEYS[2], KEYS[3]
local fingerprint = ARGV[1]
local lease_ms, retention_ms, grace = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now, now_us = clock()

-- Index entries whose records Redis removed itself (they ended more than a grace period ago) go a
-- few at a time with every claim, so the index stays bounded even when nobody purges.
local gone = redis.call('ZRANGEBYSCORE', idx, '-inf', '(' .. int(now - grace), 'LIMIT', 0, 16)
if #gone > 0 then
  redis.call('ZREM', idx, unpack(gone))
end

local r = redis.call('HMGET', rec, 's', 't', 'a', 'f', 'l', 'e')
local state, token = tonumber(r[1]), tonumber(r[2])
if state ~= nil and live(state, tonumber(r[5]), tonumber(r[6]), now) then
  if r[4] ~= fingerprint then
    return {4}
  end
  local expires = tonumber(r[6])
  if state == 1 then
    local response = redis.call('HMGET', rec, 'c', 'h', 'b')
    return {2, tonumber(response[1]), response[2], response[3], expires - now}
  end
  local lease = tonumber(r[5])
  if lease > now then
    return {3, lease - now}
  end
  -- Takeover: the owner's lease is over. Same record and recovery point, a larger token, one more attempt.
  token = token + 1
  local attempt = tonumber(r[3]) + 1
  local lease_until = now + lease_ms
  expires = math.max(expires, now + retention_ms)
  redis.call('HSET', rec, 't', int(token), 'a', int(attempt), 'l', int(lease_until), 'e', int(expires))
  schedule(rec, idx, record_end(0, lease_until, expires), grace)
  redis.call('ZADD', leases, int(lease_until), rec)
  local point = redis.call('HMGET', rec, 'p', 'q')
  return {1, token, attempt, point[1], point[2]}
end

-- Absent, released or expired: start afresh. The token is the clock in microseconds, or one more
-- than the tombstone's if that is larger, so it exceeds every token this record ever had, even one
-- of a life whose key Redis has since deleted.
local fresh = now_us
if token ~= nil and token >= fresh then
  fresh = token + 1
end
local lease_until, expires = now + lease_ms, now + retention_ms
redis.call('DEL', rec)
redis.call('HSET', rec, 's', '0', 't', int(fresh), 'a', '1', 'f', fingerprint, 'l', int(lease_until), 'e', int(expires),
  'o', int(now))
if ARGV[6] then
  redis.call('HSET', rec, 'k', ARGV[5], 'n', ARGV[6])
end
schedule(rec, idx, record_end(0, lease_until, expires), grace)
redis.call('ZADD', leases, int(lease_until), rec)
return {1, fresh, 1}
