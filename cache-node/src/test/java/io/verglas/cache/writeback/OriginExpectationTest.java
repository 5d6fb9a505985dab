package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.origin.WriteOptions;
import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.fragment.ObjectIdentity;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A buffered delete's expectation: the HEAD's state and the states the key's pending changes
 * leave; without the HEAD's answer, what those changes expected as well, and none when one of
 * them expected nothing or there are too many states.
 */
class OriginExpectationTest {
  private static final String A = "\"aaaa\"";
  private static final String B = "\"bbbb\"";
  private static final String AROUND = "\"cccc\"";

  @Test
  void aDeleteExpectsWhatTheHeadFoundAndWhatThePendingChangesLeave() {
    List<JournalRecord.Pending> buffered = List.of(write("w-1", A, OriginExpectation.ABSENT), delete("w-2"));
    assertThat(OriginExpectation.ofDelete(AROUND, buffered))
        .contains(new OriginExpectation(List.of(AROUND, A, OriginExpectation.ABSENT)));
  }

  @Test
  void withoutTheHeadADeleteExpectsWhatThePendingChangesExpectedAndLeave() {
    List<JournalRecord.Pending> buffered = List.of(write("w-1", A, OriginExpectation.ABSENT), write("w-2", B, A));
    assertThat(OriginExpectation.ofDelete(null, buffered))
        .contains(new OriginExpectation(List.of(OriginExpectation.ABSENT, A, B)));

    List<JournalRecord.Pending> unknown = List.of(write("w-1", A, OriginExpectation.ABSENT), write("w-2", B, null));
    assertThat(OriginExpectation.ofDelete(null, unknown)).as("a change that expected nothing").isEmpty();
    assertThat(OriginExpectation.ofDelete(null, List.of())).isEmpty();

    List<JournalRecord.Pending> many = new ArrayList<>();
    for (int i = 0; i < OriginExpectation.MAX_STATES; i++) {
      many.add(write("w-" + i, "\"" + i + "\"", OriginExpectation.ABSENT));
    }
    assertThat(OriginExpectation.ofDelete(null, many)).as("more than MAX_STATES").isEmpty();
  }

  @Test
  void aDeletesExpectationTravelsInItsMetadata() {
    Optional<OriginExpectation> expected = OriginExpectation.ofDelete(AROUND, List.of());
    assertThat(OriginExpectation.in(OriginExpectation.metadata(expected))).isEqualTo(expected);
    assertThat(OriginExpectation.metadata(Optional.empty())).isEmpty();
  }

  private static JournalRecord.Staged write(String writeId, String etag, String expecting) {
    Optional<OriginExpectation> expected = expecting == null ? Optional.empty()
        : Optional.of(new OriginExpectation(List.of(expecting)));
    Map<String, String> metadata = WriteBackMetadata.of(WriteOptions.DEFAULT, etag, expected);
    return new JournalRecord.Staged(new ObjectIdentity("b", "k", writeId), 1, metadata, new Geometry(2, 1, 64),
        List.of(), 1);
  }

  private static JournalRecord.Deleted delete(String writeId) {
    return new JournalRecord.Deleted(new ObjectIdentity("b", "k", writeId), 2);
  }
}
