-- admin_inspect: KEYS[1] the record.
-- Answers {now, state, token, attempt, lease end, retention end, created, phase, recovery state,
-- status, body length} for a live record (missing fields nil), or an empty list if it is absent,
-- released or expired. Never the body, the headers or the fingerprint.
local r = redis.call('HMGET', KEYS[1], 's', 't', 'a', 'l', 'e', 'o', 'p', 'q', 'c')
local state = tonumber(r[1])
local now = clock()
if state == nil or not live(state, tonumber(r[4]), tonumber(r[5]), now) then
  return {}
end
return {int(now), r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], redis.call('HSTRLEN', KEYS[1], 'b')}
