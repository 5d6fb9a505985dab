package io.verglas.maintenance.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.events.FeedEvent;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FeedClientTest {
  @RegisterExtension final FeedServer feed = new FeedServer();

  @Test
  void skipsUnknownTypesAndMovesPastThem() throws Exception {
    feed.commit("ns.a", 1);
    feed.futureEvent(2);
    feed.commit("ns.b", 3);
    feed.futureEvent(4);
    FeedClient client = new FeedClient(feed.uri(), 100);

    FeedClient.Page page = client.read(1);

    assertThat(page.events()).extracting(FeedEvent::feedSequence).containsExactly(1L, 3L);
    assertThat(page.nextSequence()).isEqualTo(5);
    assertThat(client.skipped()).isEqualTo(2);
    // Nothing after the unknown tail: an empty page that stays where it is.
    FeedClient.Page after = client.read(page.nextSequence());
    assertThat(after.events()).isEmpty();
    assertThat(after.nextSequence()).isEqualTo(5);
  }

  @Test
  void sendsTheBearerTokenWhenOneIsConfigured() throws Exception {
    feed.requireToken("s3cret");
    feed.commit("ns.a", 1);

    FeedClient.Page page = new FeedClient(feed.uri(), "s3cret", 100).read(1);

    assertThat(page.events()).extracting(FeedEvent::feedSequence).containsExactly(1L);
    assertThat(feed.authorizations()).containsExactly("Bearer s3cret");
  }

  @Test
  void aRefusedCredentialFailsNamingTheFeedNotTheToken() {
    feed.requireToken("rotated");

    assertThatThrownBy(() -> new FeedClient(feed.uri(), "s3cret", 100).read(1))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read the change feed " + feed.uri() + ": the change feed refused the"
            + " credential (HTTP 401)");
    assertThatThrownBy(() -> new FeedClient(feed.uri(), 100).read(1))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot read the change feed " + feed.uri() + ": the change feed wants a"
            + " credential and none is configured (--feed.token) (HTTP 401)");
    assertThat(feed.authorizations()).containsExactly("Bearer s3cret", "");
  }

  @Test
  void aPageIsBoundedInLinesOfAnyType() throws Exception {
    for (long sequence = 1; sequence <= 10; sequence++) {
      if (sequence % 2 == 0) {
        feed.futureEvent(sequence);
      } else {
        feed.commit("ns.a", sequence);
      }
    }
    FeedClient client = new FeedClient(feed.uri(), 4);

    FeedClient.Page first = client.read(1);
    FeedClient.Page second = client.read(first.nextSequence());

    assertThat(first.events()).extracting(FeedEvent::feedSequence).containsExactly(1L, 3L);
    assertThat(first.nextSequence()).isEqualTo(5);
    assertThat(second.events()).extracting(FeedEvent::feedSequence).containsExactly(5L, 7L);
    assertThat(second.nextSequence()).isEqualTo(9);
  }
}
