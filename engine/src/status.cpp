// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/tensor.h>

#include <sstream>

namespace attn {

std::string shapeString(const Shape4 &shape)
{
    std::ostringstream s;
    s << '[' << shape[0] << ", " << shape[1] << ", " << shape[2] << ", " << shape[3] << ']';
    return s.str();
}

} // namespace attn
