using System.Buffers;
using Newtonsoft.Json;

namespace WidgetSigning.Primitives;

/// <summary>Lends Newtonsoft's readers and writers their char buffers from <see cref="ArrayPool{T}.Shared"/>.</summary>
internal sealed class JsonCharArrayPool : IArrayPool<char>
{
    /// <summary>The one instance; the shared pool behind it is thread-safe.</summary>
    public static readonly JsonCharArrayPool Instance = new();

    private JsonCharArrayPool()
    {
    }

    public char[] Rent(int minimumLength) => ArrayPool<char>.Shared.Rent(minimumLength);

    public void Return(char[]? array)
    {
        if (array is not null)
        {
            ArrayPool<char>.Shared.Return(array);
        }
    }
}
