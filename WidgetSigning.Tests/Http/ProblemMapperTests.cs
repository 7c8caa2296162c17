using WidgetSigning.Http;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Http;

public sealed class ProblemMapperTests
{
    [Fact]
    public void TryMap_CancellationAfterRequestAborted_IsClientClosedRequest400()
    {
        // Arrange
        using var aborted = new CancellationTokenSource();
        aborted.Cancel();

        // Act
        var mapped = ProblemMapper.TryMap(new OperationCanceledException(aborted.Token), aborted.Token, out var problem);

        // Assert
        Assert.True(mapped);
        Assert.Equal(400, problem.Status);
        Assert.Equal(ProblemTypes.ClientClosedRequest, problem.Type);
    }

    [Fact]
    public void TryMap_CancellationWithoutRequestAborted_IsLeftToTheHost()
    {
        // A cancellation the client did not cause (a timeout of ours) is a server fault, not a 4xx.
        Assert.False(ProblemMapper.TryMap(new OperationCanceledException(), CancellationToken.None, out _));
    }

    [Fact]
    public void TryMap_ClientClosedRequest_IsClientClosedRequest400()
    {
        // Act
        var mapped = ProblemMapper.TryMap(Problems.ClientClosedRequest(), CancellationToken.None, out var problem);

        // Assert
        Assert.True(mapped);
        Assert.Equal(ProblemTypes.ClientClosedRequest, problem.Type);
    }
}
