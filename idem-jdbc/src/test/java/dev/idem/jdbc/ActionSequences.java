package dev.idem.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToIntFunction;

/**
 * The actions {@link StoreModelTest} runs, a generator of random sequences of them, and a shrinker
 * that cuts a failing sequence down to the few actions that still make it fail. Plain Java: a
 * {@link SplittableRandom} per try makes every sequence reproducible from its seed.
 */
final class ActionSequences {
    static final int ACTORS = 3;
    static final int MAX_KEYS = 3;
    static final int MAX_ACTIONS = 40;
    /**
     * A write's actor may be OWNER: whichever actor acquired the key last (resolved when the step runs,
     * and shown in the step log). Without it most writes would come from actors holding no token.
     */
    static final int OWNER = -1;

    private ActionSequences() {
    }

    // ---- the actions --------------------------------------------------------------------------

    /** One try: how many keys the actors share, and what they do in which order. */
    record Scenario(int keys, List<Action> actions) {
        Scenario {
            actions = List.copyOf(actions);
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder("Scenario[keys=" + keys + ", " + actions.size() + " actions]");
            for (int i = 0; i < actions.size(); i++) {
                out.append("\n  ").append(i + 1).append(". ").append(actions.get(i));
            }
            return out.toString();
        }
    }

    sealed interface Action {
        /** The key the action is about (0 for purge, which is about the whole table). */
        int key();

        /** The same action on key {@code key() % keys}. */
        Action fold(int keys);
    }

    /** A write's actor: one of the three, or {@link #OWNER}. */
    static String who(int actor) {
        return actor == OWNER ? "owner" : "a" + actor;
    }

    record Claim(int actor, int key, int fp) implements Action {
        @Override
        public Action fold(int keys) {
            return new Claim(actor, key % keys, fp);
        }

        @Override
        public String toString() {
            return "a" + actor + ".claim(k" + key + ", fp" + (char) ('A' + fp) + ")";
        }
    }

    record Checkpoint(int actor, int key, String phase, String state) implements Action {
        @Override
        public Action fold(int keys) {
            return new Checkpoint(actor, key % keys, phase, state);
        }

        @Override
        public String toString() {
            return who(actor) + ".checkpoint(k" + key + ", " + phase + ", \"" + state + "\")";
        }
    }

    record Complete(int actor, int key, int status, String body, boolean headers) implements Action {
        @Override
        public Action fold(int keys) {
            return new Complete(actor, key % keys, status, body, headers);
        }

        @Override
        public String toString() {
            return who(actor) + ".complete(k" + key + ", " + status + ", \"" + body + "\"" + (headers ? ", with headers" : "") + ")";
        }
    }

    record Release(int actor, int key) implements Action {
        @Override
        public Action fold(int keys) {
            return new Release(actor, key % keys);
        }

        @Override
        public String toString() {
            return who(actor) + ".release(k" + key + ")";
        }
    }

    record Renew(int actor, int key, boolean zero) implements Action {
        @Override
        public Action fold(int keys) {
            return new Renew(actor, key % keys, zero);
        }

        @Override
        public String toString() {
            return who(actor) + ".renew(k" + key + ", " + (zero ? "0s" : StoreModelTest.LEASE.toSeconds() + "s") + ")";
        }
    }

    /** Test-only time travel: the key's lease is over from now on. */
    record ExpireLease(int key) implements Action {
        @Override
        public Action fold(int keys) {
            return new ExpireLease(key % keys);
        }

        @Override
        public String toString() {
            return "expireLease(k" + key + ")";
        }
    }

    /** Test-only time travel: the key's retention has passed from now on. */
    record ExpireRetention(int key) implements Action {
        @Override
        public Action fold(int keys) {
            return new ExpireRetention(key % keys);
        }

        @Override
        public String toString() {
            return "expireRetention(k" + key + ")";
        }
    }

    record Purge(int limit) implements Action {
        @Override
        public int key() {
            return 0;
        }

        @Override
        public Action fold(int keys) {
            return this;
        }

        @Override
        public String toString() {
            return "purge(" + limit + ")";
        }
    }

    // ---- generating ---------------------------------------------------------------------------

    private static final String[] PHASES = {"charge", "ship", "notify"};
    private static final int[] STATUSES = {200, 201, 409, 500};

    /** A random scenario: one to three keys, and one to {@link #MAX_ACTIONS} actions (uniformly many). */
    static Scenario generate(SplittableRandom random) {
        int keys = random.nextInt(1, MAX_KEYS + 1);
        int length = random.nextInt(1, MAX_ACTIONS + 1);
        List<Action> actions = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            actions.add(action(random, keys));
        }
        return new Scenario(keys, actions);
    }

    /** One action; the weights make claims and lease expiry common, so most writes meet a live owner. */
    private static Action action(SplittableRandom random, int keys) {
        int key = random.nextInt(keys);
        int pick = random.nextInt(27);
        if (pick < 8) {
            return new Claim(random.nextInt(ACTORS), key, random.nextInt(4) < 3 ? 0 : 1); // fingerprint A 3:1
        } else if (pick < 12) {
            return new Checkpoint(writer(random), key, PHASES[random.nextInt(PHASES.length)], text(random));
        } else if (pick < 14) {
            return new Complete(writer(random), key, STATUSES[random.nextInt(STATUSES.length)], text(random), random.nextBoolean());
        } else if (pick < 16) {
            return new Release(writer(random), key);
        } else if (pick < 18) {
            return new Renew(writer(random), key, random.nextBoolean());
        } else if (pick < 23) {
            return new ExpireLease(key);
        } else if (pick < 25) {
            return new ExpireRetention(key);
        }
        return new Purge(random.nextInt(1, 3));
    }

    /** OWNER three times as often as each single actor. */
    private static int writer(SplittableRandom random) {
        int pick = random.nextInt(ACTORS + 3);
        return pick < 3 ? OWNER : pick - 3;
    }

    /** Zero to four letters from a to e. */
    private static String text(SplittableRandom random) {
        StringBuilder out = new StringBuilder();
        for (int i = random.nextInt(5); i > 0; i--) {
            out.append((char) ('a' + random.nextInt(5)));
        }
        return out.toString();
    }

    // ---- shrinking ----------------------------------------------------------------------------

    /** The smallest failing scenario found, and how many of the budgeted runs finding it took. */
    record Shrunk(Scenario scenario, int runs, int budget) {
    }

    /**
     * Delta debugging: repeatedly tries the scenario without a chunk of its actions (halves, quarters,
     * ... down to single actions) and keeps every removal after which it still fails, until no single
     * action can go; then tries folding all actions onto fewer keys. Stops after {@code budget} runs.
     *
     * @param run runs a candidate on a clean table and answers 0 if it passed, else the number of steps
     *     up to and including the one that failed (the actions after it are dropped at once)
     */
    static Shrunk shrink(Scenario failing, int failedSteps, ToIntFunction<Scenario> run, int budget) {
        Scenario current = prefix(failing, failedSteps);
        int runs = 0;
        boolean progress = true;
        while (progress && runs < budget) {
            progress = false;
            for (int chunk = Math.max(1, current.actions().size() / 2); chunk >= 1 && runs < budget; chunk /= 2) {
                int start = 0;
                while (start < current.actions().size() && runs < budget) {
                    List<Action> rest = new ArrayList<>(current.actions());
                    rest.subList(start, Math.min(start + chunk, rest.size())).clear();
                    if (rest.isEmpty()) {
                        start += chunk;
                        continue;
                    }
                    Scenario candidate = new Scenario(current.keys(), rest);
                    int steps = run.applyAsInt(candidate);
                    runs++;
                    if (steps > 0) {
                        current = prefix(candidate, steps); // the next chunk has moved to start
                        progress = true;
                    } else {
                        start += chunk;
                    }
                }
            }
            for (int keys = 1; keys < current.keys() && runs < budget; keys++) {
                int k = keys;
                Scenario candidate = new Scenario(keys, current.actions().stream().map(a -> a.fold(k)).toList());
                int steps = run.applyAsInt(candidate);
                runs++;
                if (steps > 0) {
                    current = prefix(candidate, steps);
                    progress = true;
                    break;
                }
            }
        }
        return new Shrunk(current, runs, budget);
    }

    private static Scenario prefix(Scenario scenario, int steps) {
        return new Scenario(scenario.keys(), scenario.actions().subList(0, Math.min(steps, scenario.actions().size())));
    }
}
