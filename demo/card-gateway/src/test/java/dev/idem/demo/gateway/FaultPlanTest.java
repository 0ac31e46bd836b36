package dev.idem.demo.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FaultPlanTest {
    @Test
    void parsesEveryFaultWithAndWithoutProbabilities() {
        FaultPlan plan = FaultPlan.parse("latency=200, latency-after=50,fail-before=0.25,fail-after,reset-after=0.1");

        assertThat(plan).isEqualTo(new FaultPlan(200, 50, 0.25, 1.0, 0.1));
        assertThat(FaultPlan.parse(plan.toString())).isEqualTo(plan);
    }

    @Test
    void noneAndBlankMeanNoFault() {
        assertThat(FaultPlan.parse("none")).isEqualTo(FaultPlan.NONE);
        assertThat(FaultPlan.parse(" ")).isEqualTo(FaultPlan.NONE);
        assertThat(FaultPlan.parse(null)).isEqualTo(FaultPlan.NONE);
        assertThat(FaultPlan.NONE).hasToString("none");
    }

    @Test
    void refusesWhatItDoesNotUnderstandAndSaysWhich() {
        assertThatThrownBy(() -> FaultPlan.parse("explode")).hasMessageContaining("unknown fault 'explode'");
        assertThatThrownBy(() -> FaultPlan.parse("latency")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> FaultPlan.parse("latency=-1")).hasMessageContaining("0-60000");
        assertThatThrownBy(() -> FaultPlan.parse("fail-after=1.5")).hasMessageContaining("probability 0-1");
        assertThatThrownBy(() -> FaultPlan.parse("fail-after=abc")).hasMessageContaining("probability 0-1");
        assertThatThrownBy(() -> FaultPlan.parse("none=1")).hasMessageContaining("takes no value");
    }
}
