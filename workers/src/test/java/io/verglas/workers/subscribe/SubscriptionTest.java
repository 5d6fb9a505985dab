package io.verglas.workers.subscribe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** What a subscription matches (exact type; source and subject when given) and its job identity. */
class SubscriptionTest {
  private static final String COMMIT = "org.apache.iceberg.snapshot.committed";
  private final CloudEvent commit = CloudEventBuilder.v1().withId("uuid-1:42")
      .withSource(URI.create("/verglas/catalog")).withType(COMMIT).withSubject("shop.orders").build();

  @Test
  void matchesExactlyOnTheGivenAttributes() {
    assertThat(new Subscription("d", "s", COMMIT, null, null).matches(commit)).isTrue();
    assertThat(new Subscription("d", "s", COMMIT, null, "shop.orders").matches(commit)).isTrue();
    assertThat(new Subscription("d", "s", COMMIT, "/verglas/catalog", "shop.orders")
        .matches(commit)).isTrue();
    assertThat(new Subscription("d", "s", COMMIT, null, "shop.order").matches(commit)).isFalse();
    assertThat(new Subscription("d", "s", COMMIT, "/other", null).matches(commit)).isFalse();
    assertThat(new Subscription("d", "s", COMMIT + ".v2", null, null).matches(commit)).isFalse();
    assertThat(new Subscription("d", "s", "org.apache.iceberg", null, null).matches(commit))
        .as("no prefix matching").isFalse();
  }

  @Test
  void oneJobIdentityPerSubscriptionAndEvent() {
    assertThat(new Subscription("recorder", "orders", COMMIT, null, null).jobIdentity(commit))
        .isEqualTo("recorder/orders/uuid-1:42");
  }

  @Test
  void invalidSubscriptionsAreRefused() {
    assertThatThrownBy(() -> new Subscription("d", "Bad Name", COMMIT, null, null))
        .hasMessageStartingWith("Invalid subscription name of deployment d: 'Bad Name'");
    assertThatThrownBy(() -> new Subscription("d", "s", " ", null, null))
        .hasMessage("Invalid subscription d/s: the event type is empty");
  }
}
