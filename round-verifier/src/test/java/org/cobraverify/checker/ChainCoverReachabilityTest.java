package org.cobraverify.checker;

/** The CPU reference meets the {@link ReachabilityContract}. */
class ChainCoverReachabilityTest extends ReachabilityContract {
    @Override
    protected ReachabilityEngine engine() { return ChainCoverReachability.INSTANCE; }
}
