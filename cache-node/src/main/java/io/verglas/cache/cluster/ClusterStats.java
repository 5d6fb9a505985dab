package io.verglas.cache.cluster;

/**
 * A cache node's view of its cluster and its peer counters, at one moment.
 *
 * @param viewId the membership view's id (0 before the node joined)
 * @param members members in the view, this node included
 * @param ownShare the share of keys this node owns in the view (0 when it is not a member)
 * @param capacityBytes the capacity this node advertises
 * @param peerHits blocks this node read from their owner
 * @param peerMisses peer requests the owner answered without the block (read from the origin)
 * @param peerFallbacks peer requests that timed out or failed (read from the origin)
 * @param servedToPeers blocks this node sent to peers
 * @param warmedFromPreviousOwner blocks this node, as a key's new owner, took from its previous owner
 * @param keyChangesSent write announcements peers acknowledged
 * @param keyChangesFailed write announcements that did not reach a peer
 * @param hotReplicasOffered hot blocks this node, as their owner, offered to its successors
 * @param hotReplicasTaken standby copies this node took from their owners
 * @param hotReplicaFills block fills this node served from a standby copy
 * @param standbyBytes bytes of standby copies this node holds
 */
public record ClusterStats(long viewId, int members, double ownShare, long capacityBytes,
    long peerHits, long peerMisses, long peerFallbacks, long servedToPeers,
    long warmedFromPreviousOwner, long keyChangesSent, long keyChangesFailed,
    long hotReplicasOffered, long hotReplicasTaken, long hotReplicaFills, long standbyBytes) {}
